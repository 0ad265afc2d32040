# Exercise specialize_seq_len: A shape read in Python is a constant to the tracer
# Edit this file, then check it with:  ./course check specialize_seq_len
# Stuck? ./course hint specialize_seq_len   Start over: ./course reset specialize_seq_len
"""Make the traced `mean_pool` correct for every sequence length.

`embed(tokens)` averages a batch of token vectors over the sequence and squashes the result.
The averaging, `mean_pool`, is traced non-strictly once and replayed as a graph afterwards. It
divides by `tokens.shape[1]`, which is a plain Python int while tracing, so the graph divides by
the first call's length forever, silently.

The grader traces `mean_pool` on the first call, then calls `embed` with sequences of other
lengths and compares with the program run eagerly. Fix `mean_pool` so that its graph is right
for any length.
"""

import torch


def mean_pool(tokens):
    """Average over the sequence dimension of (batch, length, features). Traced once, non-strictly."""
    return tokens.sum(dim=1) / tokens.shape[1]  # TODO: the length is read once, while tracing


def embed(tokens):
    """One vector per sequence: the squashed average of its tokens."""
    return torch.tanh(mean_pool(tokens))


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_pool, traced = mean_pool, []

    def pool_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            traced.append(make_fx(eager_pool, tracing_mode="fake")(*args))
            print(traced[0].code)
        return traced[0](*args)

    for length in (4, 8, 2):
        tokens = torch.ones(1, length, 3)
        mean_pool = eager_pool
        eager = mean_pool(tokens)
        replayed = pool_traced_once(tokens)
        print(f"length {length}: eager mean {eager[0].tolist()}  traced {replayed[0].tolist()}")

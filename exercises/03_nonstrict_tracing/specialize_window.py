# Exercise specialize_window: Pool sequences of every length through a traced helper
# Edit this file, then check it with:  ./course check specialize_window
# Stuck? ./course hint specialize_window   Start over: ./course reset specialize_window
"""Make the traced `mean_pool` right for sequences of every length.

`embed(tokens)` turns a batch of token sequences, shape `(batch, length, features)`, into one
vector per sequence: the average of its last `WINDOW` tokens (all of them, for a shorter
sequence), squashed. The averaging, `mean_pool`, is traced non-strictly once and replayed as a
graph afterwards. Traced, it is right only for sequences as long as the first one, and wrong,
silently, for the others.

The grader traces `mean_pool` on the first call, then calls `embed` with sequences of other
lengths and compares with the program run eagerly.

What the grader checks:
- For every sequence length from 1 token up, `embed` returns the squashed average of each sequence's last `WINDOW` tokens (all of them when it is shorter), computed by the graph traced from `mean_pool` on the first call.
"""

# TODO: find out why the traced pipeline is wrong for most lengths, and fix it.

import torch

WINDOW = 8  # only the last WINDOW tokens of a sequence count


def mean_pool(tokens):
    """Average of the last WINDOW tokens of (batch, length, features). Traced once, non-strictly."""
    if tokens.shape[1] > WINDOW:
        tokens = tokens[:, tokens.shape[1] - WINDOW:]
    return tokens.sum(dim=1) / tokens.shape[1]


def embed(tokens):
    """One vector per sequence: the squashed average of its last tokens."""
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

    for length in (4, 12, 2, 20):
        tokens = torch.arange(float(length)).reshape(1, length, 1) / 10  # token i holds i / 10
        mean_pool = eager_pool
        eager = embed(tokens)
        mean_pool = pool_traced_once
        replayed = embed(tokens)
        print(f"length {length:>2}: eager {eager[0].item():.4f}  traced {replayed[0].item():.4f}")

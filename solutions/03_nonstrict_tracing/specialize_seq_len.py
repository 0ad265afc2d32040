# /// exercise
# format_version = 1
# title = "A shape read in Python is a constant to the tracer"
# syllabus = ["3.2"]
# entry = "embed"
# starter_fails = ["follows_length"]
# hints = [
#   "Run the file: sequences of other lengths get a wrong average from the traced graph, and no error.",
#   "Print the traced graph's code: `tokens.shape[1]` was a Python int while tracing, so the division uses the first call's length as a number.",
#   "Let a tensor operation see the length instead of Python: one that averages over the dimension reads the size when the graph runs (lesson section 3.2).",
#   "return tokens.mean(dim=1)",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "follows_length"
# helper = "mean_pool"
# points = 4
# ///
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
    # BEGIN SOLUTION
    return tokens.mean(dim=1)
    # END SOLUTION
    # BEGIN STARTER
    # return tokens.sum(dim=1) / tokens.shape[1]  # TODO: the length is read once, while tracing
    # END STARTER


def embed(tokens):
    """One vector per sequence: the squashed average of its tokens."""
    return torch.tanh(mean_pool(tokens))


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(2, length, 8, generator=gen) + 1,) for length in (4, 7, 2, 12, 5)]
# END GRADER


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

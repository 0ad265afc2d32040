# Exercise skip_try_block: An encoder with a fallback for bad batches, compiled
# Edit this file, then check it with:  ./course check skip_try_block
# Stuck? ./course hint skip_try_block   Start over: ./course reset skip_try_block
"""Compile an encoder that validates each batch and has a fallback for the bad ones.

`encode` projects a batch through `w`. It first has the batch validated by `check_width` (the
team's rule, not yours to change): a batch whose width does not match `w` is rejected with a
ValueError, and `encode` then encodes zeros instead. For every batch it encodes, it prints the
shape it encoded. The grader compiles `encode` with the default `fullgraph=False` and calls it
on batches of its own, a rejected one among them: nothing fails, yet nothing is compiled.

What the grader checks:
- `encode` compiles: no frame of it is skipped, and its matmul and tanh run inside a graph.
- Every call prints what it prints now: `encoded (ROWS, COLUMNS)` for a batch it encodes, nothing for a batch it rejects.
- `encode` returns what it returns now, compiled as well as eagerly: the projection of a valid batch, and that of zeros for a batch `check_width` rejects.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance.
"""

import torch


def check_width(x, w):
    """The team's validation: a batch whose width is not w's number of rows is rejected."""
    if x.shape[-1] != w.shape[0]:
        raise ValueError(f"a batch of width {x.shape[-1]}; the encoder takes width {w.shape[0]}")


def encode(x, w):
    # TODO: Dynamo gives up on this function; find out why, and make it compile.
    try:
        check_width(x, w)
        h = torch.tanh(x @ w)
        print(f"encoded {tuple(h.shape)}")
    except ValueError:
        h = torch.zeros(x.shape[0], w.shape[1])
    return h @ w.T


if __name__ == "__main__":
    from autograder.lab import tally_calls

    w = torch.randn(8, 8)
    batches = [torch.randn(4, 8), torch.randn(4, 5), torch.randn(6, 8)]
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w) for x in batches], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

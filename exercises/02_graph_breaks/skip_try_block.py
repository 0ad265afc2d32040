# Exercise skip_try_block: A print inside a `try` block: Dynamo skips the whole function
# Edit this file, then check it with:  ./course check skip_try_block
# Stuck? ./course hint skip_try_block   Start over: ./course reset skip_try_block
"""Compile a function whose `try` block holds a print.

`encode` guards its projection with `try`/`except RuntimeError` (a batch of the wrong width makes
the matmul raise; it then encodes zeros) and prints the shape it encoded. The grader compiles
`encode` with the default `fullgraph=False`: nothing fails, yet nothing is compiled. Make `encode`
compile (no skipped frame; the matmul and tanh in a graph), keeping the fallback for bad batches
and printing exactly what it prints now.
"""

import torch


def encode(x, w):
    try:
        h = torch.tanh(x @ w)
        print(f"encoded {tuple(h.shape)}")  # TODO: a break inside a `try` block: Dynamo skips the whole function
    except RuntimeError:
        h = torch.zeros(x.shape[0], w.shape[1])
    return h @ w.T


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

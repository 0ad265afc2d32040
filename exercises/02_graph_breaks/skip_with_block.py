# Exercise skip_with_block: A print inside a `with` block: Dynamo skips the whole function
# Edit this file, then check it with:  ./course check skip_with_block
# Stuck? ./course hint skip_with_block   Start over: ./course reset skip_with_block
"""Compile a function whose named region holds a print.

`encode` marks its main computation with `region`, a small context manager of the team's (a
profiler hooks into it). Inside the region it prints the shape of the hidden activations. The
grader compiles `encode` with the default `fullgraph=False`: nothing fails, yet nothing is
compiled. Make `encode` compile (no skipped frame; the matmul and tanh in a graph), keeping the
region and printing exactly what it prints now.
"""

import torch


class region:
    """Marks a named region of the model; a profiler can hook into __enter__ and __exit__."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def encode(x, w):
    with region("encoder") as r:
        h = torch.tanh(x @ w)
        print(f"{r.name}: {tuple(h.shape)}")  # TODO: a break inside a `with` block: Dynamo skips the whole function
    return torch.softmax(h @ w.T, dim=-1)


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(3, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

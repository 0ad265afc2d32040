# Exercise dynamic_sizes: dynamic=False compiles once per batch size
# Edit this file, then check it with:  ./course check dynamic_sizes
# Stuck? ./course hint dynamic_sizes   Start over: ./course reset dynamic_sizes
"""Compile `normalize` once for every batch size.

The grader calls `normalize` with batches of 2 to 9 rows, compiled with the options in
`COMPILE_OPTIONS`. With `dynamic=False` each size is a new graph: 8 compiles. Make the batch
size a symbol so that at most 2 graphs (one recompile) serve all sizes.
"""

import torch

COMPILE_OPTIONS = {"dynamic": False}  # TODO: every batch size becomes its own graph


def normalize(x):
    centered = x - x.mean(dim=0, keepdim=True)
    return centered / (centered.std(dim=0, keepdim=True) + 1e-5)


if __name__ == "__main__":
    from autograder.lab import tally_calls

    print(tally_calls(normalize, [(torch.randn(n, 16),) for n in range(2, 10)], **COMPILE_OPTIONS))

# /// exercise
# format_version = 1
# title = "dynamic=False compiles once per batch size"
# syllabus = ["5.2"]
# entry = "normalize"
# submission_may_set = ["dynamic"]
# starter_fails = ["graphs", "recompiles"]
# hints = [
#   "Run the file: each batch size gets its own graph.",
#   "dynamic=False tells Dynamo to specialise every size; eight sizes are eight compiles.",
#   "Let Dynamo treat sizes as symbols: dynamic=True, or the default (None), which turns a size dynamic after its first change (lesson section 5.2).",
#   "COMPILE_OPTIONS = {\"dynamic\": True}",
# ]
#
# [[checks]]
# kind = "graphs"
# max = 2
# points = 2
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Compile `normalize` once for every batch size.

The grader calls `normalize` with batches of 2 to 9 rows, compiled with the options in
`COMPILE_OPTIONS`. With `dynamic=False` each size is a new graph: 8 compiles. Make the batch
size a symbol so that at most 2 graphs (one recompile) serve all sizes.
"""

import torch

# BEGIN SOLUTION
COMPILE_OPTIONS = {"dynamic": True}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"dynamic": False}  # TODO: every batch size becomes its own graph
# END STARTER


def normalize(x):
    centered = x - x.mean(dim=0, keepdim=True)
    return centered / (centered.std(dim=0, keepdim=True) + 1e-5)


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(n, 16, generator=gen),) for n in range(2, 10)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    print(tally_calls(normalize, [(torch.randn(n, 16),) for n in range(2, 10)], **COMPILE_OPTIONS))

# /// exercise
# format_version = 1
# title = "Twelve batch sizes and dynamic=False: past the limit, nothing is compiled"
# syllabus = ["2.5.5.4"]
# entry = "pool"
# # The grader compiles pool with the options in COMPILE_OPTIONS (it reads only "dynamic").
# submission_may_set = ["dynamic"]
# starter_fails = ["skips", "compiled_calls"]
# hints = [
#   "Run the file: every call prints and returns the right value, and no error appears. But count the graphs, and read the warning: Dynamo hit config.recompile_limit (8).",
#   "With dynamic=False every new batch size is a new graph, for `pool` and for the resume function after its print alike. At 8 graphs for one function Dynamo stops compiling it: from then on the function is skipped and runs eagerly, silently (lesson section 2.5.5.4).",
#   "Raising the limit hides the storm (and this exercise does not allow it). Let the batch size be dynamic instead: the default dynamic=None recompiles once, with the size as a symbol, and serves every later size from that graph.",
#   "COMPILE_OPTIONS = {} (or {\"dynamic\": None}).",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["tanh", "matmul"]
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "recompiles"
# max = 2
# points = 1
#
# [[checks]]
# kind = "output"
# name = "message"
# stream = "stdout"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Keep a function compiled over many batch sizes.

`pool` encodes a batch and averages it over the rows, printing the norm of the result as it goes
(a graph break, which is fine here). The grader compiles it with the options in `COMPILE_OPTIONS` and calls
it with twelve batch sizes, in order. Right now the options ask for `dynamic=False`, and after
eight graphs Dynamo stops compiling `pool`: later calls run eagerly without any error. Make every
call run compiled code, with at most two recompiles and no frame skipped, printing and returning
exactly what it does now. Only the `dynamic` option may change; the recompile limit may not.
"""

import torch

W = torch.randn(8, 8, generator=torch.Generator().manual_seed(0)) / 3

# BEGIN SOLUTION
COMPILE_OPTIONS = {}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"dynamic": False}  # TODO: every batch size is a new graph, and the limit is 8 per function
# END STARTER


def pool(x):
    pooled = torch.tanh(x @ W).mean(dim=0)
    print("pooled; norm", pooled.norm())
    return pooled * 2


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(n, 8, generator=gen),) for n in range(2, 14)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    # backend="eager" runs the captured graphs as they are: the same graphs, recompiles and limit
    # as any backend, without Inductor's compile time.
    tally = tally_calls(pool, [(torch.randn(n, 8),) for n in range(2, 14)], backend="eager", **COMPILE_OPTIONS)
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

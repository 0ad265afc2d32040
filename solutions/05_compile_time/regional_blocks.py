# /// exercise
# format_version = 1
# title = "Compile the repeated block, not the whole stack"
# syllabus = ["5.3"]
# entry = "compiled_part"
# driver = "run"
# starter_fails = ["ops"]
# hints = [
#   "Run the file: one graph holds all 16 blocks, and compiling it costs 16 times the work of one block.",
#   "The blocks are identical in code: one compiled block can serve all of them.",
#   "Regional compilation: compile the block step (taking the block as an argument) and loop over the blocks in plain Python (lesson section 5.3).",
#   "def compiled_part(block, x): return x + block(x)   and in run: for block in BLOCKS: x = part(block, x)",
# ]
#
# [[checks]]
# kind = "ops"
# max = 16
# min_largest = 4
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "compile_time"
# min_ratio = 3.0
# repeats = 3
# points = 2
# ///
"""Make the grader compile one block instead of sixteen.

The grader compiles `compiled_part` and calls `run(compiled, x)` 3 times. The starting code
compiles the whole stack of 16 identical residual blocks as one graph, so the compile traces
16 copies of the same code. Compile the repeated block instead: `compiled_part` takes one block
and one input, and `run` loops over `BLOCKS`. The grader counts the ops traced over the whole
schedule (at most 16; one block has about 5) and times the cold compile (aot_eager, the time
Dynamo spends compiling) against the starting code: at least 3x shorter.
"""

import torch

BLOCKS = [torch.nn.Sequential(torch.nn.LayerNorm(32), torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32))
          for _ in range(16)]

# BEGIN SOLUTION
def compiled_part(block, x):
    return x + block(x)


def run(part, x):
    for block in BLOCKS:
        x = part(block, x)
    return x
# END SOLUTION
# BEGIN STARTER
# def compiled_part(x):  # TODO: one graph for the whole stack traces the same block 16 times
#     for block in BLOCKS:
#         x = x + block(x)
#     return x
#
#
# def run(part, x):
#     return part(x)
# END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 32, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    print(tally_run(compiled_part, lambda compiled: run(compiled, torch.randn(4, 32)), backend="aot_eager"))

# /// exercise
# format_version = 1
# title = "Cut the compile time of a stack of identical blocks"
# syllabus = ["5.3"]
# entry = "compiled_part"
# driver = "run"
# starter_fails = ["ops"]
# hints = [
#   "Run the file: one graph holds all 16 blocks, and compiling it costs 16 times the work of one block.",
#   "The blocks are identical in code: one compiled piece of code can serve all of them, if the block it works on is an input rather than a constant.",
#   "Regional compilation: compile the repeated part (taking the block as an argument) and loop over the blocks in plain Python (lesson section 5.3). Passing a block's position instead of the block makes the position a constant of each graph.",
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
# min_graph_runs = 16  # one compiled region per block: a run that calls it for fewer blocks runs the rest eagerly
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
#
# [[requirements]]
# id = "compile_less"
# text = "Compiling traces a small part once instead of the whole stack: at most 16 ops over the whole schedule (one block holds about 5), and the cold compile at least 3x shorter than the starting code's."
# checks = ["ops", "compile_time"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every block still runs in compiled code."
# checks = ["compiled_calls", "ops"]
#
# [[requirements]]
# id = "same_stack"
# text = "`run(compiled, x)` returns what the stack of residual blocks returns now."
# checks = ["correct"]
#
# [[fair]]
# name = "residual_in_run"
# why = "the compiled part is the block alone; the residual sum happens in run"
#
# [[fair]]
# name = "layers_unpacked"
# why = "the compiled part unpacks the block into its four layers and calls them itself"
#
# [[wrong]]
# name = "index_argument"
# breaks = "compile_less"
# fails = ["ops"]
# message = "ops traced over \\d+ graph\\(s\\)"
#
# [[wrong]]
# name = "plain_loop"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "\\d+ of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "first_block_only"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "entered compiled code only 1 time"
#
# [[wrong]]
# name = "residual_lost"
# breaks = "same_stack"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make compiling this stack cost the work of one block, not sixteen.

The grader compiles `compiled_part` and calls `run(compiled, x)` 3 times. The starting code
compiles the whole stack of 16 identical residual blocks as one graph, so the compile traces
16 copies of the same code. You may change `compiled_part` (what the grader compiles, its
arguments included) and `run` (how the compiled function is used).
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
# def compiled_part(x):  # TODO: compiling this traces the same block 16 times
#     for block in BLOCKS:
#         x = x + block(x)
#     return x
#
#
# def run(part, x):
#     return part(x)
# END STARTER
# BEGIN FAIR residual_in_run
# def compiled_part(block, x):
#     return block(x)
#
#
# def run(part, x):
#     for block in BLOCKS:
#         x = x + part(block, x)
#     return x
# END FAIR
# BEGIN FAIR layers_unpacked
# def compiled_part(block, x):
#     norm, widen, activation, narrow = block
#     return x + narrow(activation(widen(norm(x))))
#
#
# def run(part, x):
#     for block in BLOCKS:
#         x = part(block, x)
#     return x
# END FAIR
# BEGIN WRONG index_argument
# def compiled_part(position, x):
#     return x + BLOCKS[position](x)
#
#
# def run(part, x):
#     for position in range(len(BLOCKS)):
#         x = part(position, x)
#     return x
# END WRONG
# BEGIN WRONG first_block_only
# def compiled_part(block, x):
#     return x + block(x)
#
#
# def run(part, x):
#     x = part(BLOCKS[0], x)  # compiled once: the other blocks are the same code
#     for block in BLOCKS[1:]:
#         x = x + block(x)
#     return x
# END WRONG
# BEGIN WRONG plain_loop
# def compiled_part(block, x):
#     return x + block(x)
#
#
# def run(part, x):
#     for block in BLOCKS:
#         x = x + block(x)
#     return x
# END WRONG
# BEGIN WRONG residual_lost
# def compiled_part(block, x):
#     return block(x)
#
#
# def run(part, x):
#     for block in BLOCKS:
#         x = part(block, x)
#     return x
# END WRONG


# BEGIN GRADER
def calls(gen):
    rows = int(torch.randint(1, 9, (1,), generator=gen))  # one batch size per grading, one row included
    return [(torch.randn(rows, 32, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    print(tally_run(compiled_part, lambda compiled: run(compiled, torch.randn(4, 32)), backend="aot_eager"))

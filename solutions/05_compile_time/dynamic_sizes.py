# /// exercise
# format_version = 1
# title = "One graph for every batch size while the compile stays static"
# syllabus = ["5.2"]
# entry = "normalize"
# driver = "run"
# compile = { dynamic = false }
# starter_fails = ["graphs", "recompiles"]
# hints = [
#   "Run the file: under dynamic=False each batch size gets its own graph, and nothing in the compile call may change.",
#   "dynamic=False turns off automatic dynamic shapes, but a dimension you mark on the input tensor itself is still traced as a symbol.",
#   "torch._dynamo.mark_dynamic(tensor, dim) before the call makes that dimension symbolic (lesson sections 5.2 and 4.1); mark only the dimension that varies, so the feature width stays a fixed size in the graph. Padding every batch to one size changes the column means.",
#   "In run: torch._dynamo.mark_dynamic(x, 0), then return fn(x).",
# ]
#
# [[checks]]
# kind = "graphs"
# max = 1
# points = 2
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 1
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "one_graph"
# text = "One graph serves every batch size: no recompile over the whole stream."
# checks = ["graphs", "recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every batch goes through the compiled `normalize` the grader passes to `run`."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_values"
# text = "Each batch is normalized over its own rows, as `normalize` does now."
# checks = ["correct"]
#
# [[fair]]
# name = "maybe_mark"
# why = "maybe_mark_dynamic: a hint that lets Dynamo specialise if it must, instead of an order"
#
# [[fair]]
# name = "mark_first_only"
# why = "only the first batch is marked: the symbolic graph it compiles accepts every later size without a mark"
#
# [[wrong]]
# name = "width_marked"
# breaks = "one_graph"
# fails = ["graphs", "recompiles"]
# message = "size mismatch at index 0"
#
# [[wrong]]
# name = "plain_call"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "\\d+ of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "padded"
# breaks = "same_values"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Serve a stream of batch sizes with one graph, without changing how `normalize` is compiled.

The grader compiles `normalize` with dynamic=False (that setting stays) and calls
`run(compiled, x)` on a stream of batches of 2 or more rows, each with 16 features. Today every
new batch size compiles a new graph. You may change `run` only.
"""

import torch

MAX_ROWS = 64  # the largest batch the stream holds
# BEGIN FAIR mark_first_only
# _marked = False
# END FAIR


def normalize(x):
    centered = x - x.mean(dim=0, keepdim=True)
    return centered / (centered.std(dim=0, keepdim=True) + 1e-5)


def run(fn, x):
    # BEGIN SOLUTION
    torch._dynamo.mark_dynamic(x, 0)
    return fn(x)
    # END SOLUTION
    # BEGIN STARTER
    # return fn(x)  # TODO: make one graph serve every batch size
    # END STARTER
    # BEGIN FAIR maybe_mark
    # torch._dynamo.maybe_mark_dynamic(x, 0)
    # return fn(x)
    # END FAIR
    # BEGIN FAIR mark_first_only
    # global _marked
    # if not _marked:
    #     torch._dynamo.mark_dynamic(x, 0)
    #     _marked = True
    # return fn(x)
    # END FAIR
    # BEGIN WRONG width_marked
    # torch._dynamo.mark_dynamic(x, 1)
    # return fn(x)
    # END WRONG
    # BEGIN WRONG plain_call
    # return normalize(x)
    # END WRONG
    # BEGIN WRONG padded
    # rows = x.shape[0]
    # padded = torch.cat([x, x.new_zeros(MAX_ROWS - rows, x.shape[1])])
    # return fn(padded)[:rows]
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Six to nine distinct batch sizes from 2 to MAX_ROWS rows, drawn per seed; 2 rows always among them."""
    count = int(torch.randint(6, 10, (1,), generator=gen))
    sizes = (torch.randperm(MAX_ROWS - 2, generator=gen)[:count - 1] + 3).tolist()
    sizes.insert(int(torch.randint(0, count, (1,), generator=gen)), 2)
    return [(torch.randn(n, 16, generator=gen),) for n in sizes]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    print(tally_run(normalize, lambda compiled: [run(compiled, torch.randn(n, 16)) for n in (3, 5, 8, 13)], dynamic=False))

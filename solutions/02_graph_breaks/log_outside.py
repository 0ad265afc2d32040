# /// exercise
# format_version = 1
# title = "Log the warning from outside the compiled code"
# syllabus = ["2.2.3"]
# entry = "clip"
# # The grader calls serve(compiled_clip, x, limit): the eager code around the compiled function.
# driver = "serve"
# compile = { fullgraph = true }
# # ignore_logging_functions may gain logging functions (nothing else); it drops their messages, though.
# config_may_add = { ignore_logging_functions = ["logging"] }
# starter_fails = ["compiles", "warning"]
# hints = [
#   "Run the file: fullgraph=True stops at log.warning with \"logging.Logger method not supported\".",
#   "Unlike print, a Logger method cannot be made reorderable. Listing it in ignore_logging_functions makes the graph whole by dropping the call, and this task keeps the warning: the grader compares what each call logs with the eager code.",
#   "Lesson sections 2.2.3 and 2.1.3: keep the logging out of the compiled code. clip can return the number of clipped values, and serve, which is not compiled, can log it.",
#   "clip returns `(clipped, count)`; serve does `out, count = step(x, limit)`, then `log.warning(\"clipped %d values\", int(count))`, and returns out.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "output"
# name = "warning"
# stream = "logging"
# expect = "reference"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Compile the clipping step into one graph and keep its warning.

`clip` limits a batch of activations to `[-limit, limit]` and logs a warning with the number of
values it clipped. The grader compiles `clip` with `fullgraph=True` and calls
`serve(compiled_clip, x, limit)`, comparing each call's output *and* the warnings it logs with
the code run without the compiler. Make `clip` compile into one graph and keep every warning.
(`ignore_logging_functions` may gain logging functions, but it drops their messages.)
"""

import logging

import torch

log = logging.getLogger("course.clip")


# BEGIN SOLUTION
def clip(x, limit):
    count = (x.abs() > limit).sum()
    return x.clamp(-limit, limit), count
# END SOLUTION
# BEGIN STARTER
# def clip(x, limit):
#     count = (x.abs() > limit).sum()
#     log.warning("clipped %d values", count)  # TODO: a Logger call cannot be compiled; log it outside, and keep it
#     return x.clamp(-limit, limit)
# END STARTER


def serve(step, x, limit):
    """The eager caller; `step` is the compiled clip."""
    # BEGIN SOLUTION
    out, count = step(x, limit)
    log.warning("clipped %d values", int(count))
    return out
    # END SOLUTION
    # BEGIN STARTER
    # return step(x, limit)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(2 * torch.randn(6, 5, generator=gen), 1.5) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    print(serve(torch.compile(clip, fullgraph=True, backend="eager"), 2 * torch.randn(6, 5), 1.5))

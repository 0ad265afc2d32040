# /// exercise
# format_version = 1
# title = "A print two calls deep: flatten the nested graph break"
# syllabus = ["2.5.4"]
# entry = "model"
# # The one configuration change allowed: the newer nested-break mode.
# allow_config = ["nested_graph_breaks"]
# starter_fails = ["graphs"]
# hints = [
#   "Run the file: one print, six graphs per call. Count the levels: model calls block, block calls layer, and layer prints.",
#   "On torch 2.13 a break inside an inlined call cannot be resumed inside the callee. Dynamo breaks at the call site in the caller instead, runs the call eagerly, and compiles the callee as a new frame, which breaks at its own call site, and so on down: N levels above the break give 2(N+1) graphs (lesson section 2.5.4).",
#   "Two ways out. Move the print up to the top level: let the helpers return what it needs and print in `model`, so the break sits in the compiled frame itself. Or turn on the newer mode, `torch._dynamo.config.nested_graph_breaks = True`, which resumes inside the innermost frame (off by default on 2.13).",
#   "Let `layer` return `h` as well (`return h * 2, h`), pass it up through `block`, and print `h.mean()` in `model`: the same message, once per call, and two graphs.",
# ]
#
# [[checks]]
# kind = "graphs"
# max = 2
# points = 2
#
# [[checks]]
# kind = "skipped_frames"
# name = "compiled"
# ops = ["tanh", "matmul"]
# points = 1
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Failed to trace builtin operator"]
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
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Get from six graphs down to two without losing the message.

`model` is compiled with the default `fullgraph=False`. Two calls down, `layer` prints a
statistic of the hidden activations, and that one print costs six graphs per call on torch 2.13,
because a break inside a nested call is paid for once per level. Keep the message, exactly
as it is printed now and once per call, and get the compiled `model` down to at most two graphs
with the same results. You may restructure the code, or use the one configuration flag this
exercise allows: `torch._dynamo.config.nested_graph_breaks`.
"""

import torch


# BEGIN SOLUTION
def layer(x, w):
    h = torch.tanh(x @ w)
    return h * 2, h


def block(x, w):
    out, h = layer(x + 1, w)
    return out - 1, h


def model(x, w):
    out, h = block(x * 3, w)
    print("hidden mean:", h.mean())  # the break now sits in the compiled frame itself
    return out.relu()
# END SOLUTION
# BEGIN STARTER
# def layer(x, w):
#     h = torch.tanh(x @ w)
#     print("hidden mean:", h.mean())  # TODO: a break two calls down: every level above it pays for it
#     return h * 2
#
#
# def block(x, w):
#     return layer(x + 1, w) - 1
#
#
# def model(x, w):
#     return block(x * 3, w).relu()
# END STARTER


# BEGIN GRADER
def calls(gen):
    w = torch.randn(8, 8, generator=gen) / 3
    return [(torch.randn(4, 8, generator=gen), w) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8) / 3
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    print(tally_calls(model, [(x, w)], backend="eager"))

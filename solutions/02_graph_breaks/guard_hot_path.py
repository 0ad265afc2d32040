# /// exercise
# format_version = 1
# title = "Make any future break in the hot path an error"
# syllabus = ["2.5.3.2", "2.5.3"]
# entry = "step"
# starter_fails = ["guard"]
# hints = [
#   "Run the file: it works, with one graph break at the log call, and that break is fine. The task is about the future: nothing stops the next change to `attention` from breaking it too, and under fullgraph=False nobody would notice.",
#   "fullgraph=True is not an option: it would make the log call in `step` an error too. You need strictness for one function only.",
#   "Lesson section 2.5.3.2: torch._dynamo.error_on_graph_break(True) makes every break inside the decorated function (or the `with` block) an error, whatever the caller's setting. The grader checks it by giving `attention` a hidden extra break: your code must raise.",
#   "Put `@torch._dynamo.error_on_graph_break(True)` on `attention`.",
# ]
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["logging.Logger method not supported for non-export cases"]
# points = 1
#
# [[checks]]
# kind = "probe_variant"
# name = "guard"
# helper = "attention"
# expect_type = "Call to `torch._dynamo.graph_break()`"
# points = 3
#
# [[checks]]
# kind = "output"
# name = "log"
# stream = "logging"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "hot_strict"
# text = "Any graph break inside `attention`, now or after a later change to it, raises an error."
# checks = ["guard"]
#
# [[requirements]]
# id = "log_tolerated"
# text = "The log call in `step` stays a tolerated graph break, and the only one."
# checks = ["breaks"]
#
# [[requirements]]
# id = "same_log"
# text = "Every call logs what it logs now through the `course.metrics` logger."
# checks = ["log"]
#
# [[requirements]]
# id = "same_output"
# text = "`step` returns what it returns now, for any width of the inputs."
# checks = ["correct"]
#
# [[fair]]
# name = "inner_fullgraph"
# why = "attention compiled on its own with fullgraph=True: inside step's compile the inner fullgraph setting still makes a break in attention an error"
#
# [[fair]]
# name = "strict_call"
# why = "a with error_on_graph_break(True) block around the call of attention in step"
#
# [[fair]]
# name = "rebound"
# why = "the module name rebound to the strict function after its definition"
#
# [[wrong]]
# name = "strict_tail_only"
# breaks = "hot_strict"
# fails = ["guard"]
# message = "ran without an error"
#
# [[wrong]]
# name = "strict_step"
# breaks = "log_tolerated"
# fails = ["breaks"]
# message = "error_on_graph_break\\(True\\)"
#
# [[wrong]]
# name = "log_dropped"
# breaks = "same_log"
# fails = ["log"]
# message = "The message is gone"
#
# [[wrong]]
# name = "width_assumed"
# breaks = "same_output"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Guard the hot path: a graph break in `attention` must be an error, a break elsewhere must not.

`step` is compiled with the default `fullgraph=False`. It logs a statistic on every call, which
breaks the graph, and that is accepted: logging is how the team watches training. `attention` is
the expensive part, and it compiles into one graph today. Make sure it stays that way: any graph
break inside `attention`, now or after a future change, must raise an error, while the log call
in `step` keeps working and keeps logging. The grader gives `attention` a hidden extra break and
expects your code to raise.
"""

import logging
import math

import torch

log = logging.getLogger("course.metrics")
log.setLevel(logging.INFO)


# BEGIN SOLUTION
@torch._dynamo.error_on_graph_break(True)
def attention(q, k, v):
# END SOLUTION
# BEGIN STARTER
# def attention(q, k, v):  # TODO: a break in here must be an error; a break in step must not
# END STARTER
# BEGIN FAIR strict_call
# def attention(q, k, v):
# END FAIR
# BEGIN FAIR rebound
# def attention(q, k, v):
# END FAIR
# BEGIN FAIR inner_fullgraph
# def attention(q, k, v):
# END FAIR
# BEGIN WRONG strict_tail_only
# def attention(q, k, v):
#     scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
#     with torch._dynamo.error_on_graph_break(True):
#         return torch.softmax(scores, dim=-1) @ v
#
#
# def _unguarded(q, k, v):
# END WRONG
# BEGIN WRONG strict_step
# def attention(q, k, v):
# END WRONG
# BEGIN WRONG log_dropped
# @torch._dynamo.error_on_graph_break(True)
# def attention(q, k, v):
# END WRONG
# BEGIN WRONG width_assumed
# @torch._dynamo.error_on_graph_break(True)
# def attention(q, k, v):
#     scores = q @ k.transpose(-2, -1) / math.sqrt(8)
#     return torch.softmax(scores, dim=-1) @ v
#
#
# def _unused(q, k, v):
# END WRONG
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


# BEGIN FAIR rebound
# attention = torch._dynamo.error_on_graph_break(True)(attention)
# END FAIR
# BEGIN FAIR inner_fullgraph
# attention = torch.compile(attention, fullgraph=True)
# END FAIR


# BEGIN SOLUTION
def step(x, wq, wk, wv):
    out = attention(x @ wq, x @ wk, x @ wv)
    log.info("output norm %.3f", out.norm())  # a graph break, and an accepted one
    return out.relu()
# END SOLUTION
# BEGIN STARTER
# def step(x, wq, wk, wv):
#     out = attention(x @ wq, x @ wk, x @ wv)
#     log.info("output norm %.3f", out.norm())  # a graph break, and an accepted one
#     return out.relu()
# END STARTER
# BEGIN FAIR strict_call
# def step(x, wq, wk, wv):
#     with torch._dynamo.error_on_graph_break(True):
#         out = attention(x @ wq, x @ wk, x @ wv)
#     log.info("output norm %.3f", out.norm())
#     return out.relu()
# END FAIR
# BEGIN WRONG strict_step
# @torch._dynamo.error_on_graph_break(True)
# def step(x, wq, wk, wv):
#     out = attention(x @ wq, x @ wk, x @ wv)
#     log.info("output norm %.3f", out.norm())
#     return out.relu()
# END WRONG
# BEGIN WRONG log_dropped
# def step(x, wq, wk, wv):
#     out = attention(x @ wq, x @ wk, x @ wv)
#     return out.relu()
# END WRONG


# BEGIN GRADER
def calls(gen):
    """Three calls: two of width 8, then one of a width drawn per seed (12 or 16, so that a
    scale computed for width 8 shows); the rows are drawn per seed too."""
    def call(width):
        weights = [torch.randn(width, width, generator=gen) / 3 for _ in range(3)]
        return (torch.randn(int(torch.randint(2, 7, (1,), generator=gen)), width, generator=gen), *weights)

    return [call(8), call(8), call([12, 16][int(torch.randint(2, (1,), generator=gen))])]

# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = (torch.randn(6, 8), torch.randn(8, 8), torch.randn(8, 8), torch.randn(8, 8))
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    tally = tally_calls(step, [args, args], backend="eager")
    print(tally, "| break types:", sorted(set(tally.break_types)))

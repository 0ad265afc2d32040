# /// exercise
# format_version = 1
# # The goal, not the fix: "Weighted row means as one graph", not "Replace .tolist() with tensors".
# title = "One line that says what the learner will achieve"
# # Syllabus IDs this exercise practises; the first one orders it within its chapter.
# syllabus = ["1.1"]
# # Optional: the lesson section that teaches the fix (default: the first syllabus ID).
# # section = "1.1"
# # The callable the grader compiles. With factory = true it is called first, with no
# # arguments, and what it returns is compiled (use that for nn.Module exercises).
# entry = "weighted_row_means"
# # How the grader compiles it: fullgraph (turn every break into an error), dynamic, backend
# # (a real backend to run the graphs with, e.g. "aot_eager"; default: the graphs run as captured).
# compile = { fullgraph = true }
# # Optional: compile keys the learner may choose through a COMPILE_OPTIONS dict in the file.
# # submission_may_set = ["dynamic"]
# # Optional: torch._dynamo.config keys the learner may change; any other change fails the grade.
# # allow_config = []
# # Optional: set-valued config keys that may only gain "print" or "logging" callables.
# # config_may_add = { reorderable_logging_functions = ["print"] }
# # Optional: a function of the file the grader calls as driver(compiled_entry, *args) per call,
# # for exercises about the eager code around the compiled function.
# # driver = "run"
# # The checks the starting file must fail: `dev check` proves it fails for this reason.
# starter_fails = ["compiles"]
# # A ladder, from "where to look" to "the fix"; `hint ID` shows one more each time.
# hints = [
#   "Where: run the file and read the line the error names.",
#   "Why: .tolist() turns tensors into Python floats, and Dynamo cannot record arithmetic on those.",
#   "Which tool: every step of the loop has a tensor version (lesson section 1.1).",
#   "The fix, nearly spelled out: broadcast, sum over the last dimension, divide by weights.sum().",
# ]
#
# # Checks, in the order they are reported. Kinds: compiles, graphs (min/max/equal),
# # graph_breaks (max, allowed), recompiles (max), compiled_calls (min_graph_runs), correct (rtol/atol),
# # answers (constant, truth; variants, function), speed (min_ratio, against, backend, needs),
# # escape_hatch (via, ops), output (stream, expect), no_dodge (forbid), opcheck (op, samples),
# # nonstrict (helper, hook, observe, ops, mode), ops (max, min_largest), breaks_allowed,
# # skipped_frames, probe_variant, guards, subgraphs, stance_calls, compile_time, guard_time,
# # reproducer.
# # CONTRIBUTING.md has the full table.
# [[checks]]
# kind = "compiles"
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 2
#
# # One entry per requirement the task states, in the learner's words; the starter's docstring
# # lists these texts under "What the grader checks:". Every check enforces at least one.
# [[requirements]]
# id = "one_graph"
# text = "`weighted_row_means` compiles with `fullgraph=True`: no graph break."
# checks = ["compiles"]
#
# [[requirements]]
# id = "weighted_mean"
# text = "It returns each row's mean weighted by `weights`, shape `(rows,)`, for any number of rows and columns."
# checks = ["correct"]
#
# # At least two fair fixes that really differ from the reference: they must pass with full marks.
# [[fair]]
# name = "einsum"
# why = "one einsum contraction instead of a broadcast product and a sum"
#
# [[fair]]
# name = "matvec"
# why = "a matrix-vector product with the weights normalised first"
#
# # At least one plausible wrong fix per requirement, ideally one a naive check would let through:
# # each must fail every check in `fails` with a message matching the regex `message`.
# [[wrong]]
# name = "half_tensor"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break"
#
# [[wrong]]
# name = "squeeze_column"
# breaks = "weighted_mean"
# fails = ["correct"]
# message = "has shape \\(\\), expected \\(1,\\)"
# ///
"""The task, as the learner reads it at the top of their file.

Say what the function does, how the grader compiles it and what goes wrong; not how to fix it.
The requirement list is added below this text from the header: do not repeat it here.
"""

import torch


def weighted_row_means(values, weights):
    # The fix; a site is this SOLUTION region and the STARTER/FAIR/WRONG regions right after it.
    # BEGIN SOLUTION
    return (values * weights).sum(dim=-1) / weights.sum()
    # END SOLUTION
    # The broken code, commented; the starter has it instead of the SOLUTION. The first exercise
    # of a chapter puts the TODO on the line, the middle ones at the function, the last nowhere.
    # BEGIN STARTER
    # total_weight = sum(weights.tolist())  # TODO: fullgraph=True stops here. What leaves the tensor world?
    # return torch.tensor([sum(v * w for v, w in zip(row, weights.tolist())) / total_weight for row in values.tolist()])
    # END STARTER
    # Variants: `dev check` renders each as a learner's file (the solution everywhere else) and
    # grades it. Every generated form drops these regions.
    # BEGIN FAIR einsum
    # return torch.einsum("rn,n->r", values, weights) / weights.sum()
    # END FAIR
    # BEGIN FAIR matvec
    # return values @ (weights / weights.sum())
    # END FAIR
    # BEGIN WRONG half_tensor
    # total_weight = sum(weights.tolist())
    # return (values * weights).sum(dim=-1) / total_weight
    # END WRONG
    # BEGIN WRONG squeeze_column
    # return (values @ weights[:, None]).squeeze() / weights.sum()
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """The grader's input schedule: one tuple of arguments per call, drawn from `gen`.

    Cover every branch and every edge the task admits, so that a WRONG variant exploiting a missing
    edge fails: here one row (where .squeeze() drops the row dimension) and sizes beyond the ones
    the file shows, drawn per seed.
    """
    rows, width = (int(v) for v in torch.randint(4, 17, (2,), generator=gen))
    shapes = [(3, 5), (1, 5), (rows, width)]
    return [(torch.randn(*shape, generator=gen), torch.rand(shape[1], generator=gen) + 0.1) for shape in shapes]
# END GRADER


if __name__ == "__main__":
    # What the learner sees when they run the file: the problem, live.
    print(torch.compile(weighted_row_means, fullgraph=True, backend="eager")(torch.randn(3, 5), torch.rand(5)))

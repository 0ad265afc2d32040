# /// exercise
# format_version = 1
# title = "One line that says what the learner will fix"
# # Syllabus IDs this exercise practises; the first one orders it within its chapter.
# syllabus = ["1.1"]
# # Optional: the lesson section that teaches the fix (default: the first syllabus ID).
# # section = "1.1"
# # The callable the grader compiles. With factory = true it is called first, with no
# # arguments, and what it returns is compiled (use that for nn.Module exercises).
# entry = "compute"
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
#   "Why: what Dynamo cannot do there.",
#   "Which tool: the lesson section that shows the fix.",
#   "The fix, nearly spelled out.",
# ]
#
# # Checks, in the order they are reported. Kinds: compiles, graphs (min/max/equal),
# # graph_breaks (max, allowed), recompiles (max), compiled_calls, correct (rtol/atol),
# # answers (constant, truth; variants, function), speed (min_ratio, against, backend, needs),
# # escape_hatch (via, ops), output (stream, expect), no_dodge (forbid), opcheck (op, samples),
# # nonstrict (helper, hook, observe, ops, mode), ops (max, min_largest), breaks_allowed,
# # skipped_frames, probe_variant, guards, subgraphs, stance_calls, compile_time, guard_time,
# # reproducer.
# # CONTRIBUTING.md has the full table.
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
# kind = "correct"
# points = 2
# ///
"""The task, as the learner reads it at the top of their file.

Say what the function does, how the grader compiles it, what is wrong, and what a fixed version
must do. Two short paragraphs at most.
"""

import torch


def compute(x):
    # BEGIN SOLUTION
    return torch.sin(x) + 1
    # END SOLUTION
    # BEGIN STARTER
    # print("computing")  # TODO: the place to change, with what is wrong in a few words
    # return torch.sin(x) + 1
    # END STARTER


# BEGIN GRADER
def calls(gen):
    """The grader's input schedule: one tuple of arguments per call, drawn from `gen`.

    Cover every branch the code can take, so a fix that hard-codes one branch fails.
    """
    return [(torch.randn(8, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    # What the learner sees when they run the file: the problem, live.
    print(torch.compile(compute, fullgraph=True)(torch.randn(8)))

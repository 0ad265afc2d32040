# /// exercise
# format_version = 1
# title = "Read the graph-break and recompile logs of a program you did not write"
# syllabus = ["7.1"]
# entry = "score"
# starter_fails = ["log_answers"]
# hints = [
#   "Run the file: it turns on TORCH_LOGS=graph_breaks,recompiles (or run it with that variable set yourself) and prints `=== call N ===` before each call, so every log line belongs to the call above it.",
#   "A graph break is logged as `Graph break in user code at FILE:LINE` with the user stack; the innermost frame is the line that breaks. A recompile is logged as `Recompiling function NAME`, followed by `- F/C: guard` lines: the guard of each cached variant that failed.",
#   "A graph break splits a function: the code after the break becomes a resume function of its own, named `torch_dynamo_resume_in_<function>_at_<line>`, which is compiled, guarded and recompiled on its own.",
#   "Call 3 is the only call that changes `reduce`; copy the function name after `Recompiling function` and the guard after the `- F/C: ` prefix (without the comment that starts with `#`). For call 4 count the `Recompiling function` lines under `=== call 4 ===`.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "log_answers"
# constant = "ANSWERS"
# truth = "expected_answers"
# points = 4
#
# [[requirements]]
# id = "log_facts"
# text = "`ANSWERS` holds what the graph-break and recompile logs of the five calls say: the line that breaks, the function recompiled during call 3 and the guard that made it, and how many functions call 4 recompiles."
# checks = ["log_answers"]
#
# [[fair]]
# name = "written_differently"
# why = "the same facts written another way: the line as a float, the guard with the spaces and newline a copy from the log brings, the count as a float"
#
# [[fair]]
# name = "parsed_from_copied_log"
# why = "pastes the log lines in and takes each answer out of them with string methods"
#
# [[wrong]]
# name = "caller_line"
# breaks = "log_facts"
# fails = ["log_answers"]
# message = "not what the grader measured: breaking_line[.]"
#
# [[wrong]]
# name = "compiled_function_named"
# breaks = "log_facts"
# fails = ["log_answers"]
# message = "not what the grader measured: recompiled_on_call_3[.]"
#
# [[wrong]]
# name = "new_value_as_guard"
# breaks = "log_facts"
# fails = ["log_answers"]
# message = "not what the grader measured: failed_guard_on_call_3[.]"
#
# [[wrong]]
# name = "one_recompile_per_call"
# breaks = "log_facts"
# fails = ["log_answers"]
# message = "not what the grader measured: recompiles_on_call_4[.]"
# ///
"""Answer four questions about a program from its logs.

`score` below is someone else's code. `CALLS` lists the five calls the program makes to the
compiled `score` (backend "eager": Dynamo only, so the logs are about tracing). Run this file with
`TORCH_LOGS=graph_breaks,recompiles` (running it as it is turns those logs on for you) and fill in
`ANSWERS`:

- `breaking_line`: the line number, in this file, of the statement where the graph breaks;
- `recompiled_on_call_3`: the name of the function Dynamo recompiles during call 3, as the log
  prints it after `Recompiling function`;
- `failed_guard_on_call_3`: the guard whose failure caused that recompile, as the log prints it
  after `F/C: ` (for example `tensor 'x' dtype mismatch. expected Float, actual Double`), without
  the `# ...` comment after it;
- `recompiles_on_call_4`: how many functions Dynamo recompiles during call 4.

Line numbers are those of this file as you got it: keep the program above `ANSWERS` unchanged.
The grader runs the same calls itself, reads the same logs, and compares.
"""

import os
import sys

import torch

WEIGHTS = torch.linspace(-1.0, 1.0, 16).reshape(4, 4)


def clip_outliers(h, limit):
    mask = h.abs() > limit
    return h.masked_fill(mask, 0.0), mask


def count_flagged(mask):
    flagged_rows = torch.nonzero(mask.any(dim=1))
    return flagged_rows.shape[0]


def score(x, limit, reduce):
    h = torch.tanh(x @ WEIGHTS) * 3
    kept, mask = clip_outliers(h, limit)
    flagged = count_flagged(mask)
    totals = kept.sum(dim=1)
    if reduce == "mean":
        return totals.mean(), flagged
    return totals.sum(), flagged


CALLS = [
    (torch.ones(2, 4), 1.5, "sum"),
    (torch.ones(2, 4) * 2, 1.5, "sum"),
    (torch.ones(2, 4), 1.5, "mean"),
    (torch.ones(5, 4), 1.5, "mean"),
    (torch.ones(5, 4), 2.5, "mean"),
]

# BEGIN SOLUTION
ANSWERS = {
    "breaking_line": 40,
    "recompiled_on_call_3": "torch_dynamo_resume_in_score_at_47",
    "failed_guard_on_call_3": "reduce == 'sum'",
    "recompiles_on_call_4": 3,
}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with what the logs say.
# ANSWERS = {
#     "breaking_line": None,
#     "recompiled_on_call_3": None,
#     "failed_guard_on_call_3": None,
#     "recompiles_on_call_4": None,
# }
# END STARTER
# BEGIN FAIR written_differently
# ANSWERS = {
#     "breaking_line": 40.0,
#     "recompiled_on_call_3": " torch_dynamo_resume_in_score_at_47 ",
#     "failed_guard_on_call_3": "  reduce == 'sum'\n",
#     "recompiles_on_call_4": 3.0,
# }
# END FAIR
# BEGIN FAIR parsed_from_copied_log
# BREAK_AT = "logs_breaks_guards.py:40"
# CALL_3_LOG = """
# Recompiling function torch_dynamo_resume_in_score_at_47 in logs_breaks_guards.py:47
#     triggered by the following guard failure(s):
#     - 3/0: reduce == 'sum'                                          # if reduce == "mean":
# """
# CALL_4_LOG = """
# Recompiling function score in logs_breaks_guards.py:44
# Recompiling function count_flagged in logs_breaks_guards.py:39
# Recompiling function torch_dynamo_resume_in_score_at_47 in logs_breaks_guards.py:47
# """
# ANSWERS = {
#     "breaking_line": int(BREAK_AT.rsplit(":", 1)[1]),
#     "recompiled_on_call_3": CALL_3_LOG.split("Recompiling function ")[1].split()[0],
#     "failed_guard_on_call_3": CALL_3_LOG.split("- 3/0: ")[1].split("#")[0].strip(),
#     "recompiles_on_call_4": CALL_4_LOG.count("Recompiling function"),
# }
# END FAIR
# BEGIN WRONG caller_line
# ANSWERS = {
#     "breaking_line": 47,
#     "recompiled_on_call_3": "torch_dynamo_resume_in_score_at_47",
#     "failed_guard_on_call_3": "reduce == 'sum'",
#     "recompiles_on_call_4": 3,
# }
# END WRONG
# BEGIN WRONG compiled_function_named
# ANSWERS = {
#     "breaking_line": 40,
#     "recompiled_on_call_3": "score",
#     "failed_guard_on_call_3": "reduce == 'sum'",
#     "recompiles_on_call_4": 3,
# }
# END WRONG
# BEGIN WRONG new_value_as_guard
# ANSWERS = {
#     "breaking_line": 40,
#     "recompiled_on_call_3": "torch_dynamo_resume_in_score_at_47",
#     "failed_guard_on_call_3": "reduce == 'mean'",
#     "recompiles_on_call_4": 3,
# }
# END WRONG
# BEGIN WRONG one_recompile_per_call
# ANSWERS = {
#     "breaking_line": 40,
#     "recompiled_on_call_3": "torch_dynamo_resume_in_score_at_47",
#     "failed_guard_on_call_3": "reduce == 'sum'",
#     "recompiles_on_call_4": 1,
# }
# END WRONG


# BEGIN GRADER
def expected_answers():
    """Run the calls with the course's logging probe and answer from what Dynamo reported."""
    import re

    from autograder.lab import starter_line
    from autograder.lab import call_log

    log = call_log(score, CALLS, prefer_file=__file__, backend="eager")
    breaks = [site for call in log for site in call.breaks if site.get("file") == __file__]
    third = log[2].recompiled
    function = re.sub(r"_at_(\d+)$", lambda m: f"_at_{starter_line(__file__, int(m[1]))}", third[0]["function"]) if third else None
    guard = third[0]["guards"][0].split(": ", 1)[1] if third and len(third[0]["guards"]) == 1 else None
    return {
        "breaking_line": starter_line(__file__, breaks[0]["line"]) if breaks else None,
        "recompiled_on_call_3": function if len(third) == 1 else [entry["function"] for entry in third],
        "failed_guard_on_call_3": guard,
        "recompiles_on_call_4": len(log[3].recompiled),
    }


def calls(gen):
    return []
# END GRADER


if __name__ == "__main__":
    if not os.environ.get("TORCH_LOGS"):
        print("(TORCH_LOGS is not set: turning on graph_breaks and recompiles from inside the program)", file=sys.stderr)
        torch._logging.set_logs(graph_breaks=True, recompiles=True)
    compiled = torch.compile(score, backend="eager")
    for number, args in enumerate(CALLS, start=1):
        print(f"=== call {number} ===", file=sys.stderr, flush=True)
        compiled(*args)
    print("=== done ===", file=sys.stderr)

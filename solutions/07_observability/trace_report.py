# /// exercise
# format_version = 1
# title = "Read a tlparse report: frames, compiles, the busiest frame and the slowest compile"
# syllabus = ["7.2"]
# entry = "pipeline"
# starter_fails = ["trace_answers"]
# hints = [
#   "Make the trace: `TORCH_TRACE=/tmp/trace_report python exercises/07_observability/trace_report.py`, then the report: `tlparse /tmp/trace_report/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser` (lesson 7.2 shows both, and the report in JupyterLab).",
#   "The stack trie at the top of index.html lists every compile id [F/C] under the frame it belongs to. F numbers the frames, C counts the compiles of that frame: [3/2] is the third compile of frame 3.",
#   "Each compile has a compilation_metrics page; its entire_frame_compile_time_s says how long that compile took. One frame traces far more operations than the others.",
#   "frames_compiled counts distinct F, compiles counts [F/C] ids, most_compiled_function is the co_name of the frame with the most compile ids (a resume function name such as torch_dynamo_resume_in_pipeline_at_NN), slowest_compile is an id written \"F/C\".",
# ]
#
# [[checks]]
# kind = "answers"
# name = "trace_answers"
# constant = "ANSWERS"
# truth = "expected_answers"
# points = 4
# ///
"""Answer four questions about a program from its TORCH_TRACE, with tlparse.

`pipeline` below is someone else's code; `run` calls it, compiled with backend "eager", on the four
inputs of `CALLS`. Record a trace of that run and render it with tlparse:

    rm -rf /tmp/trace_report
    TORCH_TRACE=/tmp/trace_report python trace_report.py
    tlparse /tmp/trace_report/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser

then open `/tmp/tl_out/index.html` and fill in `ANSWERS`:

- `frames_compiled`: how many distinct frames Dynamo compiled (the F of the compile ids [F/C]);
- `compiles`: how many compiles there were in all (compile ids, recompiles included);
- `most_compiled_function`: the name of the frame that was compiled most often, as the report
  writes it;
- `slowest_compile`: the compile id of the compile that took longest, written "F/C" (e.g. "0/1").

Keep the program above `ANSWERS` unchanged: names of resume functions contain line numbers of this
file. The grader records the same trace itself, reads its compilation metrics, and compares.
"""

import os
import sys

import torch

VOCAB = 16
TABLE = torch.linspace(-1.0, 1.0, VOCAB * 4).reshape(VOCAB, 4)
MIX = torch.linspace(-0.5, 0.5, 16).reshape(4, 4)


def embed(ids):
    h = TABLE[ids]
    for _ in range(64):
        h = h + torch.tanh(h @ MIX) * 0.1
    return h


def log_progress(h):
    print(f"embedded {h.shape[0]} tokens")


def pooled(h, mode):
    if mode == "max":
        return h.amax(dim=0)
    if mode == "last":
        return h[-1]
    return h.mean(dim=0)


def pipeline(tokens, mode):
    ids = tokens % VOCAB
    print("pipeline: start")
    h = embed(ids)
    log_progress(h)
    return pooled(h, mode)


CALLS = [
    (torch.tensor([3, 1, 4, 1, 5, 9]), "mean"),
    (torch.tensor([2, 6, 5, 3, 5, 8]), "max"),
    (torch.tensor([9, 7, 9, 3, 2, 3]), "mean"),
    (torch.tensor([8, 4, 6, 2, 6, 4]), "last"),
]


def run():
    compiled = torch.compile(pipeline, backend="eager")
    return [compiled(*args) for args in CALLS]


# BEGIN SOLUTION
ANSWERS = {
    "frames_compiled": 4,
    "compiles": 6,
    "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_58",
    "slowest_compile": "1/0",
}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with what the trace says.
# ANSWERS = {
#     "frames_compiled": None,
#     "compiles": None,
#     "most_compiled_function": None,
#     "slowest_compile": None,
# }
# END STARTER


# BEGIN GRADER
def expected_answers():
    """Record the run's structured trace (what TORCH_TRACE writes) and answer from its compilation metrics."""
    import collections
    import contextlib
    import io
    import re

    from autograder.lab import starter_line
    from autograder.lab import clean_state, compilations, structured_trace

    clean_state()
    with structured_trace() as records, contextlib.redirect_stdout(io.StringIO()):
        run()
    compiled = compilations(records)
    per_function = collections.Counter(c.function for c in compiled)
    busiest = [name for name, n in per_function.items() if n == max(per_function.values())]
    slowest = max(compiled, key=lambda c: c.seconds or 0.0)
    return {
        "frames_compiled": len({c.frame for c in compiled}),
        "compiles": len({c.compile_id for c in compiled}),
        "most_compiled_function": re.sub(r"_at_(\d+)$", lambda m: f"_at_{starter_line(__file__, int(m[1]))}", busiest[0])
        if len(busiest) == 1 else busiest,
        "slowest_compile": slowest.compile_id,
    }


def calls(gen):
    return []
# END GRADER


if __name__ == "__main__":
    if not os.environ.get("TORCH_TRACE"):
        print("TORCH_TRACE is not set, so this run records no trace. Run it as\n"
              f"    TORCH_TRACE=/tmp/trace_report {sys.executable} {sys.argv[0]}\n"
              "then: tlparse /tmp/trace_report/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser", file=sys.stderr)
    for out in run():
        print(out)

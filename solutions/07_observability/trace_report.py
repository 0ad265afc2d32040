# /// exercise
# format_version = 1
# title = "Read a tlparse report: how many frames and compiles, which frame recompiles, which graph is largest"
# syllabus = ["7.2"]
# entry = "pipeline"
# starter_fails = ["trace_answers"]
# hints = [
#   "Make the trace: `TORCH_TRACE=/tmp/trace_report python exercises/07_observability/trace_report.py`, then the report: `tlparse /tmp/trace_report/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser` (lesson 7.2 shows both, and the report in JupyterLab).",
#   "The stack trie at the top of index.html lists every compile id [F/C] under the frame it belongs to. F numbers the frames, C counts the compiles of that frame: [3/2] is the third compile of frame 3.",
#   "Each compile id links to a compilation_metrics page. Under `Graph Metrics` it shows `Graph Ops`, how many operations that compile put in its graph; under `Compile Time(seconds)` how long it took. Times change from run to run (the first compile also pays torch's start-up), the operation count does not: one frame traces far more operations than the others.",
#   "frames_compiled counts distinct F, compiles counts [F/C] ids, most_compiled_function is the co_name of the frame with the most compile ids (a resume function is named torch_dynamo_resume_in_<function>_at_<line>), largest_graph is an id written \"F/C\".",
# ]
#
# [[checks]]
# kind = "answers"
# name = "trace_answers"
# constant = "ANSWERS"
# truth = "expected_answers"
# points = 4
#
# [[requirements]]
# id = "trace_facts"
# text = "`ANSWERS` holds what the trace of this file, run as it is, shows: how many frames were compiled, how many compiles there were, the frame compiled most often, and the compile whose graph has the most operations."
# checks = ["trace_answers"]
#
# [[fair]]
# name = "counted_ids"
# why = "copies the compile ids off the report and counts them in code instead of counting by eye"
#
# [[fair]]
# name = "ids_per_frame"
# why = "copies each frame's compile ids off the stack trie and derives all four answers from that table"
#
# [[wrong]]
# name = "ids_as_frames"
# breaks = "trace_facts"
# fails = ["trace_answers"]
# message = "not what the grader measured: frames_compiled"
#
# [[wrong]]
# name = "one_compile_per_call"
# breaks = "trace_facts"
# fails = ["trace_answers"]
# message = "not what the grader measured: compiles"
#
# [[wrong]]
# name = "inlined_function_named"
# breaks = "trace_facts"
# fails = ["trace_answers"]
# message = "not what the grader measured: most_compiled_function"
#
# [[wrong]]
# name = "first_compile_largest"
# breaks = "trace_facts"
# fails = ["trace_answers"]
# message = "not what the grader measured: largest_graph"
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
- `largest_graph`: the compile id of the compile whose graph has the most operations, written
  "F/C" (e.g. "0/1").

Keep the program above `ANSWERS` unchanged: names of resume functions contain line numbers of this
file. The grader records the same trace itself, reads its compilation metrics, and compares.
(The report also says how long each compile took; those times change from run to run, which is
why the last question asks about the size of the graphs instead.)
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
    "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_64",
    "largest_graph": "1/0",
}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with what the trace says.
# ANSWERS = {
#     "frames_compiled": None,
#     "compiles": None,
#     "most_compiled_function": None,
#     "largest_graph": None,
# }
# END STARTER
# BEGIN FAIR counted_ids
# COMPILE_IDS = ["0/0", "1/0", "2/0", "3/0", "3/1", "3/2"]  # the stack trie of index.html
# ANSWERS = {
#     "frames_compiled": len({compile_id.split("/")[0] for compile_id in COMPILE_IDS}),
#     "compiles": len(COMPILE_IDS),
#     "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_64",
#     "largest_graph": max(COMPILE_IDS, key={"0/0": 1, "1/0": 257, "2/0": 0, "3/0": 1, "3/1": 1, "3/2": 1}.get),
# }
# END FAIR
# BEGIN FAIR ids_per_frame
# IDS_PER_FRAME = {
#     "pipeline": ["0/0"],
#     "torch_dynamo_resume_in_pipeline_at_62": ["1/0"],
#     "log_progress": ["2/0"],
#     "torch_dynamo_resume_in_pipeline_at_64": ["3/0", "3/1", "3/2"],
# }
# ANSWERS = {
#     "frames_compiled": len(IDS_PER_FRAME),
#     "compiles": sum(len(ids) for ids in IDS_PER_FRAME.values()),
#     "most_compiled_function": max(IDS_PER_FRAME, key=lambda name: len(IDS_PER_FRAME[name])),
#     "largest_graph": IDS_PER_FRAME["torch_dynamo_resume_in_pipeline_at_62"][0],  # the frame that runs embed's loop
# }
# END FAIR
# BEGIN WRONG ids_as_frames
# ANSWERS = {
#     "frames_compiled": 6,
#     "compiles": 6,
#     "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_64",
#     "largest_graph": "1/0",
# }
# END WRONG
# BEGIN WRONG one_compile_per_call
# ANSWERS = {
#     "frames_compiled": 4,
#     "compiles": 4,
#     "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_64",
#     "largest_graph": "1/0",
# }
# END WRONG
# BEGIN WRONG inlined_function_named
# ANSWERS = {
#     "frames_compiled": 4,
#     "compiles": 6,
#     "most_compiled_function": "pooled",
#     "largest_graph": "1/0",
# }
# END WRONG
# BEGIN WRONG first_compile_largest
# ANSWERS = {
#     "frames_compiled": 4,
#     "compiles": 6,
#     "most_compiled_function": "torch_dynamo_resume_in_pipeline_at_64",
#     "largest_graph": "0/0",
# }
# END WRONG


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
    # The size of a graph, not its compile time: times vary with the machine's load (the first
    # compile also pays torch's start-up), so a timed answer could flip between two runs.
    largest = max(compiled, key=lambda c: c.ops or 0)
    return {
        "frames_compiled": len({c.frame for c in compiled}),
        "compiles": len({c.compile_id for c in compiled}),
        "most_compiled_function": re.sub(r"_at_(\d+)$", lambda m: f"_at_{starter_line(__file__, int(m[1]))}", busiest[0])
        if len(busiest) == 1 else busiest,
        "largest_graph": largest.compile_id,
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

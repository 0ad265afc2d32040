# Exercise trace_report: Read a tlparse report: how many frames and compiles, which frame recompiles, which graph is largest
# Edit this file, then check it with:  ./course check trace_report
# Stuck? ./course hint trace_report   Start over: ./course reset trace_report
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

What the grader checks:
- `ANSWERS` holds what the trace of this file, run as it is, shows: how many frames were compiled, how many compiles there were, the frame compiled most often, and the compile whose graph has the most operations.
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


# TODO: replace each None with what the trace says.
ANSWERS = {
    "frames_compiled": None,
    "compiles": None,
    "most_compiled_function": None,
    "largest_graph": None,
}


if __name__ == "__main__":
    if not os.environ.get("TORCH_TRACE"):
        print("TORCH_TRACE is not set, so this run records no trace. Run it as\n"
              f"    TORCH_TRACE=/tmp/trace_report {sys.executable} {sys.argv[0]}\n"
              "then: tlparse /tmp/trace_report/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser", file=sys.stderr)
    for out in run():
        print(out)

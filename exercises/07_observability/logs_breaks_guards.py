# Exercise logs_breaks_guards: Read the graph-break and recompile logs of a program you did not write
# Edit this file, then check it with:  ./course check logs_breaks_guards
# Stuck? ./course hint logs_breaks_guards   Start over: ./course reset logs_breaks_guards
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

What the grader checks:
- `ANSWERS` holds what the graph-break and recompile logs of the five calls say: the line that breaks, the function recompiled during call 3 and the guard that made it, and how many functions call 4 recompiles.
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

# TODO: replace each None with what the logs say.
ANSWERS = {
    "breaking_line": None,
    "recompiled_on_call_3": None,
    "failed_guard_on_call_3": None,
    "recompiles_on_call_4": None,
}


if __name__ == "__main__":
    if not os.environ.get("TORCH_LOGS"):
        print("(TORCH_LOGS is not set: turning on graph_breaks and recompiles from inside the program)", file=sys.stderr)
        torch._logging.set_logs(graph_breaks=True, recompiles=True)
    compiled = torch.compile(score, backend="eager")
    for number, args in enumerate(CALLS, start=1):
        print(f"=== call {number} ===", file=sys.stderr, flush=True)
        compiled(*args)
    print("=== done ===", file=sys.stderr)

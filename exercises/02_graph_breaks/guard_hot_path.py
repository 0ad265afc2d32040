# Exercise guard_hot_path: Make any future break in the hot path an error
# Edit this file, then check it with:  ./course check guard_hot_path
# Stuck? ./course hint guard_hot_path   Start over: ./course reset guard_hot_path
"""Guard the hot path: a graph break in `attention` must be an error, a break elsewhere must not.

`step` is compiled with the default `fullgraph=False`. It logs a statistic on every call, which
breaks the graph, and that is accepted: logging is how the team watches training. `attention` is
the expensive part, and it compiles into one graph today. Make sure it stays that way: any graph
break inside `attention`, now or after a future change, must raise an error, while the log call
in `step` keeps working and keeps logging. The grader gives `attention` a hidden extra break and
expects your code to raise.

What the grader checks:
- Any graph break inside `attention`, now or after a later change to it, raises an error.
- The log call in `step` stays a tolerated graph break, and the only one.
- Every call logs what it logs now through the `course.metrics` logger.
- `step` returns what it returns now, for any width of the inputs.
"""

import logging
import math

import torch

log = logging.getLogger("course.metrics")
log.setLevel(logging.INFO)


def attention(q, k, v):  # TODO: a break in here must be an error; a break in step must not
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def step(x, wq, wk, wv):
    out = attention(x @ wq, x @ wk, x @ wv)
    log.info("output norm %.3f", out.norm())  # a graph break, and an accepted one
    return out.relu()


if __name__ == "__main__":
    from autograder.lab import tally_calls

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = (torch.randn(6, 8), torch.randn(8, 8), torch.randn(8, 8), torch.randn(8, 8))
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    tally = tally_calls(step, [args, args], backend="eager")
    print(tally, "| break types:", sorted(set(tally.break_types)))

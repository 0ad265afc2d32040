# Exercise predict_skips: Predict which functions Dynamo skips
# Edit this file, then check it with:  ./course check predict_skips
# Stuck? ./course hint predict_skips   Start over: ./course reset predict_skips
"""Predict, for each experiment, how many graphs Dynamo compiles, or whether a call raises.

An experiment compiles one function of this file (`function`, its name) with dynamic=False and
with `fullgraph` as given, and calls it `sizes` times, each time on an input of another length
(2, 3, ...). With `crashing_backend`, the backend is `crashing_backend` below instead of the
course's counting one. Write the rule as `predict_outcome(...)`: the number of graphs compiled in
all (0 when Dynamo skips the function entirely), or "error" when a call raises. `EXAMPLES` holds
a few experiments; the grader calls `predict_outcome` on experiments of its own and compares with
what really happens.

What the grader checks:
- For any function of this file, any number of input lengths from 1 to 12, either `fullgraph` setting and with or without the crashing backend, `predict_outcome` returns the number of graphs compiled in all, or "error" when a call raises. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment.
"""

import torch


class region:
    """A user-defined context manager that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def in_loop(x):
    for _ in range(3):
        x = x * 2
        torch._dynamo.graph_break()
    return x + 1


def after_loop(x):
    for _ in range(3):
        x = x * 2
    torch._dynamo.graph_break()
    return x + 1


def in_region(x):
    x = x * 2
    with region():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 3
    return x - 1


def in_no_grad(x):
    x = x * 2
    with torch.no_grad():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 3
    return x - 1


def in_try(x):
    x = x * 2
    try:
        x = x + 1
        torch._dynamo.graph_break()
    except ValueError:
        x = x - 1
    return x * 3


def after_try(x):
    x = x * 2
    try:
        x = x + 1
    except ValueError:
        x = x - 1
    torch._dynamo.graph_break()
    return x * 3


def shift(x):
    return x + 1


def crashing_backend(gm, example_inputs):
    raise RuntimeError("this backend always fails")


FUNCTIONS = ["in_loop", "after_loop", "in_region", "in_no_grad", "in_try", "after_try", "shift"]


def predict_outcome(function, sizes, fullgraph, crashing_backend):
    """The number of graphs compiled in all when `function` (a name in FUNCTIONS) is compiled and
    called on `sizes` input lengths, or "error" when a call raises."""
    # TODO: replace this guess with the rule.
    return "error" if fullgraph or crashing_backend else sizes


def _experiment(function, sizes=1, fullgraph=False, crashing_backend=False):
    return {"function": function, "sizes": sizes, "fullgraph": fullgraph, "crashing_backend": crashing_backend}


EXAMPLES = {
    "in_loop": _experiment("in_loop"),
    "after_loop": _experiment("after_loop"),
    "in_region": _experiment("in_region"),
    "in_no_grad": _experiment("in_no_grad"),
    "in_try": _experiment("in_try"),
    "after_try": _experiment("after_try", sizes=3),
    "ten_sizes": _experiment("shift", sizes=10),
    "ten_sizes_fullgraph": _experiment("shift", sizes=10, fullgraph=True),
    "crashing_backend": _experiment("shift", crashing_backend=True),
    "crash_skipped": _experiment("in_try", crashing_backend=True),
}

OUTCOMES = {name: predict_outcome(**experiment) for name, experiment in EXAMPLES.items()}


if __name__ == "__main__":
    for name, example in EXAMPLES.items():
        print(f"{name:>20}: {example}; you predict {OUTCOMES[name]!r}")

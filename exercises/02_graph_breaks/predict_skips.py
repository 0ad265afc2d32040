# Exercise predict_skips: Predict: which functions does Dynamo skip?
# Edit this file, then check it with:  ./course check predict_skips
# Stuck? ./course hint predict_skips   Start over: ./course reset predict_skips
"""Predict, for each experiment, how many graphs Dynamo compiles, or whether the call raises.

Each experiment in `EXPERIMENTS` compiles one function of this file with the options listed and
calls it on the inputs listed. Fill in `OUTCOMES[name]` with the number of graphs compiled (a whole
number; 0 when Dynamo skips the function entirely), or with "error" when a call raises. The grader
runs every experiment itself and compares.
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


TEN_SIZES = [(torch.ones(n),) for n in range(2, 12)]
ONE = [(torch.ones(3),)]

# name: (function, calls, compile options)
EXPERIMENTS = {
    "in_loop": (in_loop, ONE, {}),
    "after_loop": (after_loop, ONE, {}),
    "in_region": (in_region, ONE, {}),
    "in_no_grad": (in_no_grad, ONE, {}),
    "in_try": (in_try, ONE, {}),
    "after_try": (after_try, ONE, {}),
    "ten_sizes_static": (shift, TEN_SIZES, {"dynamic": False}),
    "ten_sizes_static_fullgraph": (shift, TEN_SIZES, {"dynamic": False, "fullgraph": True}),
    "crashing_backend": (shift, ONE, {"backend": crashing_backend}),
}

# TODO: replace each None with a number of graphs, or "error".
OUTCOMES = {"in_loop": None, "after_loop": None, "in_region": None, "in_no_grad": None, "in_try": None,
            "after_try": None, "ten_sizes_static": None, "ten_sizes_static_fullgraph": None, "crashing_backend": None}


def experiment(name):
    """Run one experiment with the course's counting backend; returns "error" or the number of graphs."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import tally_calls

    function, calls, options = EXPERIMENTS[name]
    try:
        return tally_calls(function, calls, **options).graphs
    except Exception as exc:  # noqa: BLE001 - an error is one of the outcomes
        print(f"  ({name} raised {type(exc).__name__})")
        return "error"


if __name__ == "__main__":
    import logging

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # the recompile-limit warning would drown the table
    for name in EXPERIMENTS:
        print(f"{name:>28}: {experiment(name)}")

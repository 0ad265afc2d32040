# /// exercise
# format_version = 1
# title = "Predict: which functions does Dynamo skip?"
# syllabus = ["2.5.5.5", "2.5.5.1", "2.5.5.2", "2.5.5.3", "2.5.5.4"]
# section = "2.5.5"
# entry = "after_loop"
# starter_fails = ["outcomes"]
# hints = [
#   "Each experiment compiles one function and calls it. The answer is a number of graphs, or \"error\". A function Dynamo skips entirely compiles 0 graphs and raises nothing.",
#   "Dynamo cannot resume after a break inside a loop, inside the `with` block of a user context manager, or inside a `try` block: it skips the whole frame (lesson sections 2.5.5.1 to 2.5.5.3). torch.no_grad() and contextlib.nullcontext() are context managers it knows how to split.",
#   "Past the recompile limit (8 graphs per function), the function is skipped; with fullgraph=True that is an error instead (lesson section 2.5.5.4). A backend that crashes is a hard error, not a skip (lesson section 2.5.5.5).",
#   "Run `python exercises/02_graph_breaks/predict_skips.py` to see every outcome, and explain each one with section 2.5.5.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "outcomes"
# constant = "OUTCOMES"
# truth = "measured_outcomes"
# points = 4
# ///
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

# BEGIN SOLUTION
OUTCOMES = {"in_loop": 0, "after_loop": 2, "in_region": 0, "in_no_grad": 2, "in_try": 0, "after_try": 2,
            "ten_sizes_static": 8, "ten_sizes_static_fullgraph": "error", "crashing_backend": "error"}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with a number of graphs, or "error".
# OUTCOMES = {"in_loop": None, "after_loop": None, "in_region": None, "in_no_grad": None, "in_try": None,
#             "after_try": None, "ten_sizes_static": None, "ten_sizes_static_fullgraph": None, "crashing_backend": None}
# END STARTER


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


# BEGIN GRADER
def measured_outcomes():
    return {name: experiment(name) for name in EXPERIMENTS}


def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    import logging

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # the recompile-limit warning would drown the table
    for name in EXPERIMENTS:
        print(f"{name:>28}: {experiment(name)}")

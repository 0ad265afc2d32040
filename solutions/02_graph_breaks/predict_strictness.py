# /// exercise
# format_version = 1
# title = "Predict: error or no error, with fullgraph and error_on_graph_break"
# syllabus = ["2.5.3.5", "2.5.3.4", "2.5.3.3"]
# entry = "noisy"
# starter_fails = ["outcomes"]
# hints = [
#   "Each experiment compiles one function of this file and calls it once. Each has exactly one graph break, in `noisy`, `tolerant` or `strict`; the question is only whether that break is an error.",
#   "error_on_graph_break(True) makes breaks errors, (False) tolerates them, and the innermost setting wins, whether it comes from a decorator or a `with` block (lesson section 2.5.3.3).",
#   "fullgraph=True is stronger than anything inside it: no error_on_graph_break(False) and no inner torch.compile can switch it off (lesson section 2.5.3.4).",
#   "Run `python exercises/02_graph_breaks/predict_strictness.py` to see every outcome, then explain each one with the table of lesson section 2.5.3.5.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "outcomes"
# constant = "OUTCOMES"
# truth = "measured_outcomes"
# points = 4
# ///
"""Predict which of these compiled calls raise an error.

Every experiment in `EXPERIMENTS` compiles one function of this file (with the `fullgraph` setting
listed) and calls it once. Each call meets exactly one graph break. Fill in `OUTCOMES[name]` with
"error" when the call raises and "ok" when it runs. The grader runs every experiment itself and
compares.
"""

import torch

EGB = torch._dynamo.error_on_graph_break


def noisy(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


@EGB(False)
def tolerant(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


@EGB(True)
def strict(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def calls_noisy(x):
    return noisy(x.sin()).cos()


def calls_tolerant(x):
    return tolerant(x.sin()).cos()


def calls_strict(x):
    return strict(x.sin()).cos()


@EGB(True)
def strict_calls_noisy(x):
    return noisy(x.sin()).cos()


@EGB(True)
def strict_calls_tolerant(x):
    return tolerant(x.sin()).cos()


@EGB(True)
def strict_with_block(x):
    with EGB(False):
        y = noisy(x.sin())
    return y.cos()


@EGB(False)
def tolerant_calls_strict(x):
    return strict(x.sin()).cos()


# name: (function, fullgraph)
EXPERIMENTS = {
    "plain": (calls_noisy, False),
    "plain_fullgraph": (calls_noisy, True),
    "strict_outer": (strict_calls_noisy, False),
    "strict_outer_tolerant_helper": (strict_calls_tolerant, False),
    "strict_outer_with_block": (strict_with_block, False),
    "fullgraph_tolerant_helper": (calls_tolerant, True),
    "default_outer_strict_helper": (calls_strict, False),
    "tolerant_outer_strict_helper": (tolerant_calls_strict, False),
}

# BEGIN SOLUTION
OUTCOMES = {"plain": "ok", "plain_fullgraph": "error", "strict_outer": "error", "strict_outer_tolerant_helper": "ok",
            "strict_outer_with_block": "ok", "fullgraph_tolerant_helper": "error", "default_outer_strict_helper": "error",
            "tolerant_outer_strict_helper": "error"}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with "error" or "ok".
# OUTCOMES = {"plain": None, "plain_fullgraph": None, "strict_outer": None, "strict_outer_tolerant_helper": None,
#             "strict_outer_with_block": None, "fullgraph_tolerant_helper": None, "default_outer_strict_helper": None,
#             "tolerant_outer_strict_helper": None}
# END STARTER


def experiment(name):
    """Run one experiment with the course's counting backend; returns its outcome (error or not, graphs)."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import run_case

    function, fullgraph = EXPERIMENTS[name]
    return run_case(function, torch.ones(3), fullgraph=fullgraph)


# BEGIN GRADER
def measured_outcomes():
    return {name: "error" if experiment(name).error else "ok" for name in EXPERIMENTS}


def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>30}: {experiment(name)}")

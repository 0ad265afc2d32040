# Exercise predict_strictness: Predict: error or no error, with fullgraph and error_on_graph_break
# Edit this file, then check it with:  ./course check predict_strictness
# Stuck? ./course hint predict_strictness   Start over: ./course reset predict_strictness
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

# TODO: replace each None with "error" or "ok".
OUTCOMES = {"plain": None, "plain_fullgraph": None, "strict_outer": None, "strict_outer_tolerant_helper": None,
            "strict_outer_with_block": None, "fullgraph_tolerant_helper": None, "default_outer_strict_helper": None,
            "tolerant_outer_strict_helper": None}


def experiment(name):
    """Run one experiment with the course's counting backend; returns its outcome (error or not, graphs)."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import run_case

    function, fullgraph = EXPERIMENTS[name]
    return run_case(function, torch.ones(3), fullgraph=fullgraph)


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>30}: {experiment(name)}")

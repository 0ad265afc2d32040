# Exercise dynamic_predict: Predict the graph count under dynamic=None, True and False
# Edit this file, then check it with:  ./course check dynamic_predict
# Stuck? ./course hint dynamic_predict   Start over: ./course reset dynamic_predict
"""Predict how many graphs Dynamo compiles in each experiment.

`shift(x)` is compiled with a given `dynamic=` setting and called once on a square input of each
size in the list. Fill in `GRAPHS[name]` with the number of graphs compiled in each experiment of
`EXPERIMENTS`. The grader runs every experiment itself and compares.
"""

import torch


def shift(x):
    return x + 1


# name: (dynamic setting, sizes of the square inputs, in call order)
EXPERIMENTS = {
    "default_3_to_6": (None, [3, 4, 5, 6]),
    "dynamic_3_to_6": (True, [3, 4, 5, 6]),
    "static_3_to_6": (False, [3, 4, 5, 6]),
    "default_1_to_3": (None, [1, 2, 3]),
    "dynamic_1_to_3": (True, [1, 2, 3]),
    "default_repeat": (None, [4, 4, 4, 5, 5, 5]),
}

# TODO: replace each None with the number of graphs Dynamo compiles in that experiment.
GRAPHS = {"default_3_to_6": None, "dynamic_3_to_6": None, "static_3_to_6": None, "default_1_to_3": None,
          "dynamic_1_to_3": None, "default_repeat": None}


def experiment(name):
    """Run one experiment with the course's counting backend and return Dynamo's tally."""
    from autograder.lab import tally_calls

    dynamic, sizes = EXPERIMENTS[name]
    return tally_calls(shift, [(torch.randn(n, n),) for n in sizes], dynamic=dynamic)


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>16}: {experiment(name)}")

# Exercise dynamic_predict: Predict the graph count under dynamic=None, True and False
# Edit this file, then check it with:  ./course check dynamic_predict
# Stuck? ./course hint dynamic_predict   Start over: ./course reset dynamic_predict
"""Predict how many graphs Dynamo compiles, for any `dynamic=` setting and any input sizes.

`shift(x)` is compiled afresh with a given `dynamic=` setting and then called once on a square
input of each size in a list, in order. Write the rule as the function `predict_graphs(dynamic,
sizes)`: it returns the number of graphs compiled. The experiments in `EXPERIMENTS` are examples;
the grader runs experiments of its own and compares with what your function predicts.

What the grader checks:
- For any `dynamic=` setting and any list of sizes, `predict_graphs` returns the number of graphs Dynamo compiles.
"""

import torch


def shift(x):
    return x + 1


def predict_graphs(dynamic, sizes):
    """The number of graphs Dynamo compiles for `shift` compiled with `dynamic=dynamic` and called
    on square inputs of the sizes in `sizes`, in that order."""
    # TODO: replace this guess with the rule.
    return 1


# Examples: name -> (dynamic setting, sizes of the square inputs, in call order).
EXPERIMENTS = {
    "default_3_to_6": (None, [3, 4, 5, 6]),
    "dynamic_3_to_6": (True, [3, 4, 5, 6]),
    "static_3_to_6": (False, [3, 4, 5, 6]),
    "default_1_to_3": (None, [1, 2, 3]),
    "dynamic_1_to_3": (True, [1, 2, 3]),
    "default_repeat": (None, [4, 4, 4, 5, 5, 5]),
    "static_2_to_11": (False, list(range(2, 12))),
}

GRAPHS = {name: predict_graphs(dynamic, sizes) for name, (dynamic, sizes) in EXPERIMENTS.items()}


if __name__ == "__main__":
    for name, (dynamic, sizes) in EXPERIMENTS.items():
        print(f"{name:>16}: dynamic={dynamic!s:<5} sizes={sizes}  you predict {GRAPHS[name]} graph(s)")

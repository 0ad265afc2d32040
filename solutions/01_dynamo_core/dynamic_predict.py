# /// exercise
# format_version = 1
# title = "Predict the graph count under dynamic=None, True and False"
# syllabus = ["1.5", "1.4"]
# entry = "shift"
# starter_fails = ["graph_counts"]
# hints = [
#   "Each experiment compiles `shift` afresh and calls it on square inputs of the listed sizes. Count graphs, not calls.",
#   "dynamic=False: every new size is a new graph. dynamic=True: sizes are symbols from the start. dynamic=None (the default): the first graph is static; the first size change recompiles once with that dimension made dynamic.",
#   "Sizes 0 and 1 are always specialised, even with dynamic=True: a size-1 input can never share a graph with a size-2 input.",
#   "Run `python exercises/01_dynamo_core/dynamic_predict.py` to see each count, then explain each one to yourself with the previous hint.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "graph_counts"
# constant = "GRAPHS"
# truth = "expected_graphs"
# points = 4
# ///
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

# BEGIN SOLUTION
GRAPHS = {"default_3_to_6": 2, "dynamic_3_to_6": 1, "static_3_to_6": 4, "default_1_to_3": 2, "dynamic_1_to_3": 2,
          "default_repeat": 2}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with the number of graphs Dynamo compiles in that experiment.
# GRAPHS = {"default_3_to_6": None, "dynamic_3_to_6": None, "static_3_to_6": None, "default_1_to_3": None,
#           "dynamic_1_to_3": None, "default_repeat": None}
# END STARTER


def experiment(name):
    """Run one experiment with the course's counting backend and return Dynamo's tally."""
    from autograder.lab import tally_calls

    dynamic, sizes = EXPERIMENTS[name]
    return tally_calls(shift, [(torch.randn(n, n),) for n in sizes], dynamic=dynamic)


# BEGIN GRADER
def expected_graphs():
    return {name: experiment(name).graphs for name in EXPERIMENTS}


def calls(gen):
    return [(torch.randn(3, 3, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>16}: {experiment(name)}")

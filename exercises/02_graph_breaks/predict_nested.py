# Exercise predict_nested: Predict the cost of a graph break N calls deep
# Edit this file, then check it with:  ./course check predict_nested
# Stuck? ./course hint predict_nested   Start over: ./course reset predict_nested
"""Predict how many graphs, and how many graph breaks, one break costs at each depth.

`depth_0` has a graph break between two operations; `depth_N` does some work, calls
`depth_{N-1}`, and does some more. Each experiment compiles one of them (with torch 2.13's default
settings, or with `nested_graph_breaks=True` where its name says so) and calls it once. Fill in
`GRAPHS[name]` with the number of graphs compiled and `BREAKS[name]` with the number of graph
breaks Dynamo counts (`counters["graph_break"]`). The grader runs every experiment and compares.
"""

import torch


def depth_0(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x + 2


def depth_1(x):
    return depth_0(x * 2) - 1


def depth_2(x):
    return depth_1(x * 3) - 2


def depth_3(x):
    return depth_2(x * 4) - 3


# name: (function, nested_graph_breaks)
EXPERIMENTS = {
    "depth_0": (depth_0, False),
    "depth_1": (depth_1, False),
    "depth_2": (depth_2, False),
    "depth_3": (depth_3, False),
    "depth_3_nested_mode": (depth_3, True),
}

# TODO: replace each None with what Dynamo measures.
GRAPHS = {"depth_0": None, "depth_1": None, "depth_2": None, "depth_3": None, "depth_3_nested_mode": None}
BREAKS = {"depth_0": None, "depth_1": None, "depth_2": None, "depth_3": None, "depth_3_nested_mode": None}


def experiment(name):
    """Run one experiment with the course's counting backend and return Dynamo's tally."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import tally_calls

    function, nested = EXPERIMENTS[name]
    with torch._dynamo.config.patch(nested_graph_breaks=nested):
        return tally_calls(function, [(torch.ones(3),)])


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>20}: {experiment(name)}")

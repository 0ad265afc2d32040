# /// exercise
# format_version = 1
# title = "Predict the cost of a graph break N calls deep"
# syllabus = ["2.5.4"]
# entry = "depth_0"
# starter_fails = ["graph_counts", "break_counts"]
# hints = [
#   "Each experiment compiles one function of the chain and calls it once. depth_0 holds the break itself; depth_N calls depth_{N-1}. Every level has work before and after its call.",
#   "On torch 2.13 a break inside an inlined call cannot be resumed inside the callee: Dynamo breaks at the call site in the caller, runs the callee eagerly, and the callee, a new frame, does the same one level down (lesson section 2.5.4).",
#   "Count it for depth_1 by hand: a graph before the call and one after it in depth_1, and two for depth_0 as its own frame. Each level adds two graphs and one more report of the same break.",
#   "With torch._dynamo.config.nested_graph_breaks = True Dynamo resumes inside the innermost frame: two graphs, one break, whatever the depth.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "graph_counts"
# constant = "GRAPHS"
# truth = "measured_graphs"
# points = 2
#
# [[checks]]
# kind = "answers"
# name = "break_counts"
# constant = "BREAKS"
# truth = "measured_breaks"
# points = 2
# ///
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

# BEGIN SOLUTION
GRAPHS = {"depth_0": 2, "depth_1": 4, "depth_2": 6, "depth_3": 8, "depth_3_nested_mode": 2}
BREAKS = {"depth_0": 1, "depth_1": 2, "depth_2": 3, "depth_3": 4, "depth_3_nested_mode": 1}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with what Dynamo measures.
# GRAPHS = {"depth_0": None, "depth_1": None, "depth_2": None, "depth_3": None, "depth_3_nested_mode": None}
# BREAKS = {"depth_0": None, "depth_1": None, "depth_2": None, "depth_3": None, "depth_3_nested_mode": None}
# END STARTER


def experiment(name):
    """Run one experiment with the course's counting backend and return Dynamo's tally."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import tally_calls

    function, nested = EXPERIMENTS[name]
    with torch._dynamo.config.patch(nested_graph_breaks=nested):
        return tally_calls(function, [(torch.ones(3),)])


# BEGIN GRADER
def measured_graphs():
    return {name: experiment(name).graphs for name in EXPERIMENTS}


def measured_breaks():
    return {name: experiment(name).graph_breaks for name in EXPERIMENTS}


def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    for name in EXPERIMENTS:
        print(f"{name:>20}: {experiment(name)}")

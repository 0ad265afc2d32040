# /// exercise
# format_version = 1
# title = "Predict the graph count under dynamic=None, True and False"
# syllabus = ["1.5", "1.4"]
# entry = "shift"
# starter_fails = ["graph_counts"]
# hints = [
#   "Each experiment compiles `shift` afresh and calls it on square inputs of the listed sizes, in order. Count graphs, not calls: a call that an existing graph accepts compiles nothing.",
#   "dynamic=False: every new size is a new graph. dynamic=True: sizes are symbols from the start. dynamic=None (the default): the first graph is static; the first size change recompiles once with that dimension made dynamic, and that graph serves the later sizes.",
#   "Sizes 0 and 1 are always specialised, even with dynamic=True: a size-1 input never shares a graph with a size-2 input. And the recompile limit (8 graphs per function, lesson 1.4) caps the count.",
#   "Walk the sizes in order and keep a list of the graphs made so far (a fixed size, or one symbolic graph for sizes >= 2 once the dimension is dynamic): a size no graph accepts adds one, up to 8.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "graph_counts"
# constant = "GRAPHS"
# constant_truth = "expected_graphs"
# variants = "draw_experiments"
# truth = "graphs_for"
# function = "predict_graphs"
# points = 4
#
# [[requirements]]
# id = "graph_rule"
# text = "For any `dynamic=` setting and any list of sizes, `predict_graphs` returns the number of graphs Dynamo compiles."
# checks = ["graph_counts"]
#
# [[fair]]
# name = "closed_form"
# why = "counts the graphs with one formula per setting instead of walking the calls"
#
# [[fair]]
# name = "cache_of_keys"
# why = "walks the calls with a set of graph keys, a size or the word 'symbolic'"
#
# [[wrong]]
# name = "no_zero_one"
# breaks = "graph_rule"
# fails = ["graph_counts"]
# message = "dynamic_1_to_3"
#
# [[wrong]]
# name = "default_is_static"
# breaks = "graph_rule"
# fails = ["graph_counts"]
# message = "default_3_to_6"
#
# [[wrong]]
# name = "no_limit"
# breaks = "graph_rule"
# fails = ["graph_counts"]
# message = "static_2_to_11"
#
# [[wrong]]
# name = "default_is_dynamic"
# breaks = "graph_rule"
# fails = ["graph_counts"]
# message = "default_3_to_6"
# ///
"""Predict how many graphs Dynamo compiles, for any `dynamic=` setting and any input sizes.

`shift(x)` is compiled afresh with a given `dynamic=` setting and then called once on a square
input of each size in a list, in order. Write the rule as the function `predict_graphs(dynamic,
sizes)`: it returns the number of graphs compiled. The experiments in `EXPERIMENTS` are examples;
the grader runs experiments of its own and compares with what your function predicts.
"""

import torch


def shift(x):
    return x + 1


def predict_graphs(dynamic, sizes):
    """The number of graphs Dynamo compiles for `shift` compiled with `dynamic=dynamic` and called
    on square inputs of the sizes in `sizes`, in that order."""
    # BEGIN SOLUTION
    graphs = []  # each graph accepts one size, or ("symbolic") every size from 2 up
    dynamic_dim = dynamic is True
    for n in sizes:
        if any(g == n or (g == "symbolic" and n >= 2) for g in graphs):
            continue
        if dynamic is None and graphs:
            dynamic_dim = True  # a size guard failed: the recompile makes the dimension dynamic
        graphs.append("symbolic" if dynamic_dim and n >= 2 else n)
    return min(len(graphs), 8)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: replace this guess with the rule.
    # return 1
    # END STARTER
    # BEGIN FAIR closed_form
    # first, small = sizes[0], {n for n in sizes if n < 2}
    # if dynamic is False:
    #     count = len(set(sizes))
    # elif dynamic is True:
    #     count = len(small) + any(n >= 2 for n in sizes)
    # else:
    #     count = 1 + len(small - {first}) + any(n >= 2 and n != first for n in sizes)
    # return min(count, 8)
    # END FAIR
    # BEGIN FAIR cache_of_keys
    # keys, made_dynamic = set(), dynamic is True
    # for n in sizes:
    #     key = "symbolic" if made_dynamic and n >= 2 else n
    #     if n in keys or (n >= 2 and "symbolic" in keys):
    #         continue
    #     if dynamic is None and keys:
    #         made_dynamic = True
    #         key = "symbolic" if n >= 2 else n
    #     keys.add(key)
    # return min(len(keys), 8)
    # END FAIR
    # BEGIN WRONG no_zero_one
    # if dynamic is False:
    #     return min(len(set(sizes)), 8)
    # if dynamic is True:
    #     return 1
    # return 1 if len(set(sizes)) == 1 else 2
    # END WRONG
    # BEGIN WRONG default_is_static
    # graphs = []
    # for n in sizes:
    #     if any(g == n or (g == "symbolic" and n >= 2) for g in graphs):
    #         continue
    #     graphs.append("symbolic" if dynamic is True and n >= 2 else n)
    # return min(len(graphs), 8)
    # END WRONG
    # BEGIN WRONG no_limit
    # graphs = []
    # dynamic_dim = dynamic is True
    # for n in sizes:
    #     if any(g == n or (g == "symbolic" and n >= 2) for g in graphs):
    #         continue
    #     if dynamic is None and graphs:
    #         dynamic_dim = True
    #     graphs.append("symbolic" if dynamic_dim and n >= 2 else n)
    # return len(graphs)
    # END WRONG
    # BEGIN WRONG default_is_dynamic
    # graphs = []
    # for n in sizes:
    #     if any(g == n or (g == "symbolic" and n >= 2) for g in graphs):
    #         continue
    #     graphs.append("symbolic" if dynamic is not False and n >= 2 else n)
    # return min(len(graphs), 8)
    # END WRONG


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


# BEGIN GRADER
def experiment(dynamic, sizes):
    """Run one experiment with the course's counting backend; returns Dynamo's tally."""
    from autograder.lab import tally_calls

    return tally_calls(shift, [(torch.randn(n, n),) for n in sizes], dynamic=dynamic)


def expected_graphs():
    """The truth for the examples (what the answers check compares GRAPHS with today)."""
    return {name: experiment(dynamic, sizes).graphs for name, (dynamic, sizes) in EXPERIMENTS.items()}


def draw_experiments(gen):
    """Hidden experiments for `variants` (the answers check with `function = "predict_graphs"`):
    a setting and 1 to 10 sizes drawn per seed, with 0 and 1 often among them, and sometimes more
    distinct sizes than the recompile limit."""
    drawn = []
    for number in range(8):
        dynamic = (None, True, False)[number % 3]
        length = int(torch.randint(1, 11, (1,), generator=gen))
        pool = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 16])
        sizes = pool[torch.randint(len(pool), (length,), generator=gen)].tolist()
        drawn.append({"dynamic": dynamic, "sizes": sizes})
    drawn.append({"dynamic": False, "sizes": (torch.randperm(14, generator=gen) + 2).tolist()[:10]})
    return drawn


def graphs_for(params):
    """The truth for one drawn experiment."""
    return experiment(params["dynamic"], params["sizes"]).graphs


def calls(gen):
    return [(torch.randn(3, 3, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    for name, (dynamic, sizes) in EXPERIMENTS.items():
        print(f"{name:>16}: dynamic={dynamic!s:<5} sizes={sizes}  you predict {GRAPHS[name]} graph(s)")

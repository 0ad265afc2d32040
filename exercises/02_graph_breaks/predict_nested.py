# Exercise predict_nested: Predict what one graph break costs N calls deep
# Edit this file, then check it with:  ./course check predict_nested
# Stuck? ./course hint predict_nested   Start over: ./course reset predict_nested
"""Predict how many graphs, and how many graph breaks, one graph break costs a few calls deep.

A chain is described by `levels`, a list of `(work_before, work_after)` pairs of booleans from
`depth_0` up: `depth_0` holds a `torch._dynamo.graph_break()`, with work before and after it or
not; `depth_N` calls `depth_{N-1}`, with work before the call (on its argument) and after it (on
the result) or not. `chain_source(levels)` writes the chain out as code, so you can read it. Each
experiment compiles the outermost function afresh, with `nested_graph_breaks` as given (off by
default on torch 2.13), and calls it once. Write the rule as `predict_counts(levels, nested)`:
it returns `(graphs, breaks)`, the number of graphs compiled and the number of graph breaks Dynamo
counts (`counters["graph_break"]`). `EXAMPLES` holds a few chains; the grader runs chains of its
own and compares.

What the grader checks:
- For any chain of calls (each level with or without work before and after its call) and either setting of `nested_graph_breaks`, `predict_counts` returns the number of graphs Dynamo compiles and the number of graph breaks it counts. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment.
"""


def chain_source(levels):
    """The chain described by `levels` as Python source: depth_0 first, the compiled one last."""
    lines = []
    for depth, (before, after) in enumerate(levels):
        lines.append(f"def depth_{depth}(x):")
        if depth == 0:
            lines += ["    x = x + 1"] if before else []
            lines += ["    torch._dynamo.graph_break()", "    return x + 2" if after else "    return x"]
        else:
            call = f"depth_{depth - 1}(x * {depth + 1})" if before else f"depth_{depth - 1}(x)"
            lines.append(f"    return {call} - {depth}" if after else f"    return {call}")
        lines.append("")
    return "\n".join(lines)


def predict_counts(levels, nested):
    """(graphs, breaks) for the chain `levels`, compiled at its outermost level and called once."""
    # TODO: replace this guess with the rule.
    return 2, 1


# Examples: name -> the chain (depth_0 first) and the setting of nested_graph_breaks.
EXAMPLES = {
    "one_level": {"levels": [(True, True)], "nested": False},
    "three_levels": {"levels": [(True, True)] * 3, "nested": False},
    "bare_callers": {"levels": [(True, True), (False, False), (False, False)], "nested": False},
    "nothing_after": {"levels": [(True, True), (True, False), (True, False)], "nested": False},
    "four_levels_nested": {"levels": [(True, True)] * 4, "nested": True},
    "nested_nothing_after": {"levels": [(True, False), (False, False), (True, False)], "nested": True},
}

COUNTS = {name: tuple(predict_counts(**example)) for name, example in EXAMPLES.items()}


if __name__ == "__main__":
    for name, example in EXAMPLES.items():
        print(f"{name:>20}: nested={example['nested']!s:<5} you predict (graphs, breaks) = {COUNTS[name]}")
        print("    " + chain_source(example["levels"]).replace("\n", "\n    "))

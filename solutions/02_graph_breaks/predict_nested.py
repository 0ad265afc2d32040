# /// exercise
# format_version = 1
# title = "Predict what one graph break costs N calls deep"
# syllabus = ["2.5.4"]
# entry = "predict_counts"
# starter_fails = ["counts"]
# hints = [
#   "Each experiment compiles the outermost function of a chain and calls it once. `depth_0` holds the break; every other level calls the level below it. A level may do work before its call (or its break), after it, both, or neither.",
#   "On torch 2.13 a break inside an inlined call cannot be resumed inside the callee: Dynamo ends the graph at the call site in the caller, runs the call eagerly, and the callee, now a frame of its own, does the same one level down (lesson section 2.5.4). With nested_graph_breaks=True Dynamo resumes inside the innermost frame instead.",
#   "A graph with no operation in it is never compiled. So count, level by level, the sides of each call (or of the break) that hold work. The break itself is reported once for every frame that meets it.",
#   "Default: graphs = the number of (level, side) pairs with work, breaks = the number of levels. nested_graph_breaks=True: one graph for all the work before the break, one for all the work after it (each only if there is any), and one break.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "counts"
# constant = "COUNTS"
# constant_truth = "expected_counts"
# variants = "draw_chains"
# function = "predict_counts"
# truth = "chain_truth"
# points = 4
#
# [[requirements]]
# id = "count_rule"
# text = "For any chain of calls (each level with or without work before and after its call) and either setting of `nested_graph_breaks`, `predict_counts` returns the number of graphs Dynamo compiles and the number of graph breaks it counts. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment."
# checks = ["counts"]
#
# [[fair]]
# name = "closed_form"
# why = "one formula per setting: sums over the levels instead of a walk"
#
# [[fair]]
# name = "frames"
# why = "walks the frames Dynamo compiles, outermost first, each contributing its two sides"
#
# [[wrong]]
# name = "nested_always_work_before"
# breaks = "count_rule"
# fails = ["counts"]
# message = "returned .*the grader measured|not what the grader measured"
#
# [[wrong]]
# name = "two_per_level"
# breaks = "count_rule"
# fails = ["counts"]
# message = "not what the grader measured: .*bare_callers|returned .*the grader measured"
#
# [[wrong]]
# name = "one_break"
# breaks = "count_rule"
# fails = ["counts"]
# message = "not what the grader measured: .*three_levels|returned .*the grader measured"
#
# [[wrong]]
# name = "nested_counts_levels"
# breaks = "count_rule"
# fails = ["counts"]
# message = "not what the grader measured: .*nested|returned .*the grader measured"
#
# [[wrong]]
# name = "nested_always_two"
# breaks = "count_rule"
# fails = ["counts"]
# message = "not what the grader measured: .*nested_nothing_after|returned .*the grader measured"
# ///
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
    # BEGIN SOLUTION
    if nested:
        before = any(work_before for work_before, _ in levels)
        after = any(work_after for _, work_after in levels)
        return int(before) + int(after), 1
    graphs = 0
    for work_before, work_after in levels:
        graphs += int(work_before) + int(work_after)  # an empty side compiles nothing
    return graphs, len(levels)  # every frame on the way down meets the break once
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: replace this guess with the rule.
    # return 2, 1
    # END STARTER
    # BEGIN FAIR closed_form
    # sides_before = sum(bool(b) for b, _ in levels)
    # sides_after = sum(bool(a) for _, a in levels)
    # if nested:
    #     return min(sides_before, 1) + min(sides_after, 1), 1
    # return sides_before + sides_after, len(levels)
    # END FAIR
    # BEGIN FAIR frames
    # if nested:
    #     return len([side for side in zip(*levels) if any(side)]), 1
    # graphs, breaks = 0, 0
    # for frame in reversed(levels):  # the compiled frame first, then each callee run as a frame of its own
    #     graphs += sum(1 for side in frame if side)
    #     breaks += 1
    # return graphs, breaks
    # END FAIR
    # BEGIN WRONG nested_always_work_before
    # if nested:  # a graph before the break, always
    #     return 1 + int(any(after for _, after in levels)), 1
    # return sum(int(before) + int(after) for before, after in levels), len(levels)
    # END WRONG
    # BEGIN WRONG two_per_level
    # return (2, 1) if nested else (2 * len(levels), len(levels))
    # END WRONG
    # BEGIN WRONG one_break
    # if nested:
    #     return int(any(b for b, _ in levels)) + int(any(a for _, a in levels)), 1
    # return sum(int(b) + int(a) for b, a in levels), 1
    # END WRONG
    # BEGIN WRONG nested_counts_levels
    # if nested:
    #     return int(any(b for b, _ in levels)) + int(any(a for _, a in levels)), len(levels)
    # return sum(int(b) + int(a) for b, a in levels), len(levels)
    # END WRONG
    # BEGIN WRONG nested_always_two
    # if nested:
    #     return 2, 1
    # return sum(int(b) + int(a) for b, a in levels), len(levels)
    # END WRONG


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


# BEGIN GRADER
def _break_level(before, after):
    """depth_0 with or without work on each side of its break."""
    import torch

    if before and after:
        def depth_0(x):
            x = x + 1
            torch._dynamo.graph_break()
            return x + 2
    elif before:
        def depth_0(x):
            x = x + 1
            torch._dynamo.graph_break()
            return x
    elif after:
        def depth_0(x):
            torch._dynamo.graph_break()
            return x + 2
    else:
        def depth_0(x):
            torch._dynamo.graph_break()
            return x
    return depth_0


def _calling_level(inner, before, after):
    """A level that calls `inner`, with or without work on each side of the call."""
    if before and after:
        def level(x):
            return inner(x * 2) - 1
    elif before:
        def level(x):
            return inner(x * 2)
    elif after:
        def level(x):
            return inner(x) - 1
    else:
        def level(x):
            return inner(x)
    return level


def _chain(levels):
    """The chain's outermost function. Every level gets a code object of its own (named depth_N):
    copies of one code object would share their compiled code."""
    import types

    function = None
    for depth, (before, after) in enumerate(levels):
        made = _break_level(before, after) if depth == 0 else _calling_level(function, before, after)
        code = made.__code__.replace(co_name=f"depth_{depth}", co_qualname=f"depth_{depth}")
        function = types.FunctionType(code, made.__globals__, f"depth_{depth}", None, made.__closure__)
    return function


def chain_truth(params):
    """The truth for one drawn parameter set (the answers check's `truth`)."""
    return counts_for(**params)


def counts_for(levels, nested):
    """The truth for one chain: what Dynamo compiles and counts."""
    import torch

    from autograder.lab import tally_calls

    with torch._dynamo.config.patch(nested_graph_breaks=bool(nested)):
        tally = tally_calls(_chain([tuple(level) for level in levels]), [(torch.ones(3),)])
    return tally.graphs, tally.graph_breaks


def expected_counts():
    """The truth for the examples: what the answers check compares COUNTS with."""
    return {name: counts_for(**example) for name, example in EXAMPLES.items()}


def draw_chains(gen):
    """Hidden chains for the answers check's `variants`: seven chains of one to five levels, each
    side with or without work, drawn per seed. Each grading holds the cases a rule must get right: a
    default chain with a bare caller (no work on either side of its call), a default chain of one
    level, a nested chain with no work after the break anywhere, a nested chain with no work before
    it anywhere, a nested chain two or more deep, and one random chain of each setting."""
    import torch

    def coin():
        return bool(torch.randint(0, 2, (1,), generator=gen))

    def chain(depth):
        return [[coin(), coin()] for _ in range(depth)]

    def depth(low, high):
        return int(torch.randint(low, high + 1, (1,), generator=gen))

    bare = chain(depth(2, 5))
    bare[depth(1, len(bare) - 1)] = [False, False]
    nothing_after = [[coin(), False] for _ in range(depth(2, 4))]
    nothing_after[0][0] = True  # work before the break, so one graph is compiled
    drawn = [
        {"levels": bare, "nested": False},
        {"levels": chain(1), "nested": False},
        {"levels": chain(depth(1, 4)), "nested": False},
        {"levels": nothing_after, "nested": True},
        {"levels": chain(depth(2, 5)), "nested": True},
        {"levels": chain(depth(1, 4)), "nested": True},
        {"levels": [[False, coin()] for _ in range(depth(1, 4))], "nested": True},  # no work before the break anywhere
    ]
    order = torch.randperm(len(drawn), generator=gen).tolist()
    return [drawn[i] for i in order]


def calls(gen):
    return [([(True, True)], False)]
# END GRADER


if __name__ == "__main__":
    for name, example in EXAMPLES.items():
        print(f"{name:>20}: nested={example['nested']!s:<5} you predict (graphs, breaks) = {COUNTS[name]}")
        print("    " + chain_source(example["levels"]).replace("\n", "\n    "))

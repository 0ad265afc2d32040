# /// exercise
# format_version = 1
# title = "Predict when a graph break is an error"
# syllabus = ["2.5.3.5", "2.5.3.4", "2.5.3.3"]
# entry = "predict_outcome"
# starter_fails = ["outcomes"]
# hints = [
#   "Print `experiment_source(...)` for an example and find every graph break in it (there are one or two). The call raises when one of them is an error; the question for each break is which setting is in effect where it sits.",
#   "error_on_graph_break(True) makes a break an error and (False) tolerates it; with nothing set, breaks are tolerated. The innermost setting around a break wins, whether it comes from a decorator or a `with` block (lesson section 2.5.3.3).",
#   "fullgraph=True is stronger than any error_on_graph_break(False) inside it (lesson section 2.5.3.4). The break in `outer` sits before the `with` block, so only `outer`'s decorator reaches it; the break in `helper` sits inside everything.",
#   "For the break in `helper`, look through (around_break, helper, around_call, outer) and take the first that is not None; for the break in `outer`, only `outer`. A break is an error when fullgraph is on or its setting is True.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "outcomes"
# constant = "OUTCOMES"
# constant_truth = "measured_outcomes"
# variants = "draw_experiments"
# function = "predict_outcome"
# truth = "experiment_truth"
# points = 4
#
# [[requirements]]
# id = "strictness_rule"
# text = "For any experiment (either `fullgraph` setting, error_on_graph_break set to True, False or nothing at each of the four places, with or without a break in `outer` too), `predict_outcome` returns \"error\" when the compiled call raises and \"ok\" when it runs. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment."
# checks = ["outcomes"]
#
# [[fair]]
# name = "innermost_first"
# why = "a loop over the settings from the innermost out, for each break"
#
# [[fair]]
# name = "last_set"
# why = "the settings in effect listed from the outside in, the last one that is set decides"
#
# [[wrong]]
# name = "tolerance_at_break_beats_fullgraph"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "returned .*the grader measured|not what the grader measured"
#
# [[wrong]]
# name = "block_at_break_forgotten"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "returned .*the grader measured|not what the grader measured"
#
# [[wrong]]
# name = "outermost_wins"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*strict_outer_tolerant_helper|returned .*the grader measured"
#
# [[wrong]]
# name = "tolerance_beats_fullgraph"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*fullgraph_tolerant_helper|returned .*the grader measured"
#
# [[wrong]]
# name = "blocks_ignored"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*strict_outer_with_block|returned .*the grader measured"
#
# [[wrong]]
# name = "helper_break_only"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*strict_outer_breaks_first|returned .*the grader measured"
#
# [[wrong]]
# name = "block_covers_outer_break"
# breaks = "strictness_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*block_after_outer_break|returned .*the grader measured"
# ///
"""Predict which compiled calls raise because of a graph break, and which run.

An experiment compiles `outer` (with `fullgraph` as given) and calls it once. `outer` calls
`helper`, and `helper` holds a `torch._dynamo.graph_break()`; with `outer_break`, `outer` has a
break of its own too, before the call. `torch._dynamo.error_on_graph_break` (EGB below) may be set
at four places, each to True, False or not at all (None): `outer` (a decorator on `outer`),
`around_call` (a `with` block around the call of `helper`), `helper` (a decorator on `helper`) and
`around_break` (a `with` block around the break in `helper`). `experiment_source(...)` writes an
experiment out as code, so you can read it. Write the rule as `predict_outcome(...)`: "error" when
the call raises, "ok" when it runs. `EXAMPLES` holds a few experiments; the grader calls
`predict_outcome` on experiments of its own and compares with what really happens.
"""


def experiment_source(fullgraph, outer, around_call, helper, around_break, outer_break):
    """The experiment as Python source (EGB is torch._dynamo.error_on_graph_break)."""
    def decorator(setting):
        return [] if setting is None else [f"@EGB({setting})"]

    def block(setting, body, indent):
        if setting is None:
            return [indent + line for line in body]
        return [f"{indent}with EGB({setting}):"] + [indent + "    " + line for line in body]

    lines = decorator(helper) + ["def helper(x):", "    x = x + 1"]
    lines += block(around_break, ["torch._dynamo.graph_break()"], "    ")
    lines += ["    return x * 2", ""]
    lines += decorator(outer) + ["def outer(x):", "    x = x.sin()"]
    lines += ["    torch._dynamo.graph_break()", "    x = x - 1"] if outer_break else []
    lines += block(around_call, ["x = helper(x)"], "    ")
    lines += ["    return x.cos()", "", f"torch.compile(outer, fullgraph={fullgraph})(torch.ones(3))"]
    return "\n".join(lines)


def predict_outcome(fullgraph, outer, around_call, helper, around_break, outer_break):
    """"error" when the compiled call of this experiment raises, "ok" when it runs."""
    # BEGIN SOLUTION
    if fullgraph:
        return "error"  # every break is an error, whatever is set inside
    in_helper = next((s for s in (around_break, helper, around_call, outer) if s is not None), False)
    in_outer = bool(outer) if outer_break else False  # the block around the call starts after this break
    return "error" if in_helper or in_outer else "ok"
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: replace this guess with the rule.
    # return "error" if fullgraph else "ok"
    # END STARTER
    # BEGIN FAIR innermost_first
    # breaks = [[around_break, helper, around_call, outer]]  # innermost first
    # if outer_break:
    #     breaks.append([outer])
    # for settings in breaks:
    #     setting = False
    #     for candidate in settings:
    #         if candidate is not None:
    #             setting = candidate
    #             break
    #     if fullgraph or setting:
    #         return "error"
    # return "ok"
    # END FAIR
    # BEGIN FAIR last_set
    # def strict(outside_in):
    #     set_ones = [s for s in outside_in if s is not None]
    #     return fullgraph or (bool(set_ones) and set_ones[-1])
    # outer_break_strict = outer_break and strict([outer])
    # return "error" if strict([outer, around_call, helper, around_break]) or outer_break_strict else "ok"
    # END FAIR
    # BEGIN WRONG tolerance_at_break_beats_fullgraph
    # if fullgraph:  # a tolerant block right around the break lets fullgraph=True through
    #     return "ok" if around_break is False else "error"
    # if outer_break and outer is True:
    #     return "error"
    # for setting in (around_break, helper, around_call, outer):
    #     if setting is not None:
    #         return "error" if setting else "ok"
    # return "ok"
    # END WRONG
    # BEGIN WRONG block_at_break_forgotten
    # if fullgraph:
    #     return "error"
    # if outer_break and outer is True:
    #     return "error"
    # for setting in (helper, around_call, outer):  # the block right around the break left out
    #     if setting is not None:
    #         return "error" if setting else "ok"
    # return "ok"
    # END WRONG
    # BEGIN WRONG outermost_wins
    # if fullgraph:
    #     return "error"
    # in_helper = next((s for s in (outer, around_call, helper, around_break) if s is not None), False)
    # return "error" if in_helper or (outer_break and outer) else "ok"
    # END WRONG
    # BEGIN WRONG tolerance_beats_fullgraph
    # in_helper = next((s for s in (around_break, helper, around_call, outer) if s is not None), fullgraph)
    # in_outer = (outer if outer is not None else fullgraph) if outer_break else False
    # return "error" if in_helper or in_outer else "ok"
    # END WRONG
    # BEGIN WRONG blocks_ignored
    # if fullgraph:
    #     return "error"
    # in_helper = next((s for s in (helper, outer) if s is not None), False)
    # return "error" if in_helper or (outer_break and outer) else "ok"
    # END WRONG
    # BEGIN WRONG helper_break_only
    # if fullgraph:
    #     return "error"
    # in_helper = next((s for s in (around_break, helper, around_call, outer) if s is not None), False)
    # return "error" if in_helper else "ok"
    # END WRONG
    # BEGIN WRONG block_covers_outer_break
    # if fullgraph:
    #     return "error"
    # in_helper = next((s for s in (around_break, helper, around_call, outer) if s is not None), False)
    # in_outer = next((s for s in (around_call, outer) if s is not None), False) if outer_break else False
    # return "error" if in_helper or in_outer else "ok"
    # END WRONG


def _experiment(fullgraph=False, outer=None, around_call=None, helper=None, around_break=None, outer_break=False):
    return {"fullgraph": fullgraph, "outer": outer, "around_call": around_call, "helper": helper,
            "around_break": around_break, "outer_break": outer_break}


EXAMPLES = {
    "plain": _experiment(),
    "plain_fullgraph": _experiment(fullgraph=True),
    "strict_outer": _experiment(outer=True),
    "strict_outer_tolerant_helper": _experiment(outer=True, helper=False),
    "strict_outer_with_block": _experiment(outer=True, around_call=False),
    "fullgraph_tolerant_helper": _experiment(fullgraph=True, helper=False),
    "tolerant_outer_strict_helper": _experiment(outer=False, helper=True),
    "strict_outer_breaks_first": _experiment(outer=True, around_call=False, outer_break=True),
    "block_after_outer_break": _experiment(around_call=True, helper=False, outer_break=True),
}

OUTCOMES = {name: predict_outcome(**experiment) for name, experiment in EXAMPLES.items()}


# BEGIN GRADER
def _helper(around_break):
    """`helper` as experiment_source writes it, before its decorator."""
    import torch

    EGB = torch._dynamo.error_on_graph_break
    if around_break is None:
        def helper(x):
            x = x + 1
            torch._dynamo.graph_break()
            return x * 2
    elif around_break:
        def helper(x):
            x = x + 1
            with EGB(True):
                torch._dynamo.graph_break()
            return x * 2
    else:
        def helper(x):
            x = x + 1
            with EGB(False):
                torch._dynamo.graph_break()
            return x * 2
    return helper


def _outer(helper, around_call, outer_break):
    """`outer` as experiment_source writes it, before its decorator."""
    import torch

    EGB = torch._dynamo.error_on_graph_break
    if around_call is None and not outer_break:
        def outer(x):
            x = x.sin()
            x = helper(x)
            return x.cos()
    elif around_call is None:
        def outer(x):
            x = x.sin()
            torch._dynamo.graph_break()
            x = x - 1
            x = helper(x)
            return x.cos()
    elif not outer_break:
        def outer(x):
            x = x.sin()
            with EGB(around_call):
                x = helper(x)
            return x.cos()
    else:
        def outer(x):
            x = x.sin()
            torch._dynamo.graph_break()
            x = x - 1
            with EGB(around_call):
                x = helper(x)
            return x.cos()
    return outer


def experiment_truth(params):
    """The truth for one drawn parameter set (the answers check's `truth`)."""
    return outcome_for(**params)


def outcome_for(fullgraph, outer, around_call, helper, around_break, outer_break):
    """The truth for one experiment: `outer` built as experiment_source writes it, compiled with
    the course's counting backend (Dynamo's own breaks and errors, like backend="eager") and called
    once."""
    import torch

    from autograder.lab import run_case

    EGB = torch._dynamo.error_on_graph_break

    def decorated(function, setting):
        return function if setting is None else EGB(bool(setting))(function)

    built = decorated(_outer(decorated(_helper(around_break), helper), around_call, bool(outer_break)), outer)
    return "error" if run_case(built, torch.ones(3), fullgraph=bool(fullgraph)).error else "ok"


def measured_outcomes():
    """The truth for the examples: what the answers check compares OUTCOMES with."""
    return {name: outcome_for(**experiment) for name, experiment in EXAMPLES.items()}


def draw_experiments(gen):
    """Hidden experiments for the answers check's `variants`: eight, drawn per seed. Each grading
    holds the cases a rule must get right: two settings that disagree around the helper's break,
    the inner one a block (which two places, drawn); fullgraph with a tolerant setting inside it;
    a strict `outer` whose own break comes before a tolerant block; a strict block that starts
    after `outer`'s break; nothing set at all; one drawn at random; fullgraph with tolerant
    settings at the break and at one other place; and a tolerant block at the break inside a
    strict setting."""
    import torch

    def pick(options):
        return options[int(torch.randint(len(options), (1,), generator=gen))]

    disagreeing = pick([{"outer": True, "around_call": False}, {"outer": False, "around_call": True},
                            {"helper": True, "around_break": False}])
    places = ("outer", "around_call", "helper", "around_break")
    drawn = [
        _experiment(**disagreeing, outer_break=pick([False, True]) and disagreeing.get("outer") is None),
        _experiment(fullgraph=True, **{pick(places): False}),
        _experiment(outer=True, around_call=False, helper=pick([None, False]), outer_break=True),
        _experiment(around_call=True, helper=pick([None, False]), around_break=False, outer_break=True),
        _experiment(outer_break=pick([False, True])),
        _experiment(fullgraph=pick([False, False, True]), outer_break=pick([False, True]),
                    **{place: pick([None, True, False]) for place in places}),
        # fullgraph with the tolerant setting at the break itself and another place, and a tolerant
        # block at the break inside a strict setting further out: what rules that rank the block
        # at the break below the others get wrong.
        _experiment(fullgraph=True, around_break=False, **{pick(places[:3]): False}),
        _experiment(**{pick(places[:3]): True}, around_break=False),
    ]
    order = torch.randperm(len(drawn), generator=gen).tolist()
    return [drawn[i] for i in order]


def calls(gen):
    return [tuple(_experiment().values())]
# END GRADER


if __name__ == "__main__":
    for name, experiment in EXAMPLES.items():
        print(f"--- {name}: you predict {OUTCOMES[name]!r}")
        print(experiment_source(**experiment))

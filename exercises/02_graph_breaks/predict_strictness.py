# Exercise predict_strictness: Predict when a graph break is an error
# Edit this file, then check it with:  ./course check predict_strictness
# Stuck? ./course hint predict_strictness   Start over: ./course reset predict_strictness
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

What the grader checks:
- For any experiment (either `fullgraph` setting, error_on_graph_break set to True, False or nothing at each of the four places, with or without a break in `outer` too), `predict_outcome` returns "error" when the compiled call raises and "ok" when it runs. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment.
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
    # TODO: replace this guess with the rule.
    return "error" if fullgraph else "ok"


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


if __name__ == "__main__":
    for name, experiment in EXAMPLES.items():
        print(f"--- {name}: you predict {OUTCOMES[name]!r}")
        print(experiment_source(**experiment))

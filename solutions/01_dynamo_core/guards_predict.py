# /// exercise
# format_version = 1
# title = "Which guard fails?"
# syllabus = ["1.3"]
# entry = "scale"
# starter_fails = ["failing_guard"]
# hints = [
#   "Compare the two calls field by field. Which of the differences can Dynamo have assumed while it traced `torch.relu(x) * factor`?",
#   "A tensor argument is guarded on its metadata (dtype, device, shape, strides, requires_grad), never on its values. A Python float argument is guarded on its value. Global state such as grad mode is guarded too.",
#   "A transposed view has the same shape as a contiguous tensor of that shape but other strides. The first call always compiles; only differences from it can fail a guard.",
#   "Check the fields one by one: a different dtype is \"dtype\", shape \"size\", transposed \"stride\", factor \"value\", grad \"global_state\"; no difference at all is None.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "failing_guard"
# constant = "FAILING_GUARD"
# constant_truth = "expected_guards"
# variants = "draw_pairs"
# truth = "guard_for"
# function = "failing_guard"
# points = 6
#
# [[requirements]]
# id = "guard_rule"
# text = "For a first and a second call of the compiled `scale`, `failing_guard` names the kind of guard the second call fails, or None when it reuses the first graph."
# checks = ["failing_guard"]
#
# [[fair]]
# name = "table"
# why = "a table from field to guard kind, walked in order"
#
# [[fair]]
# name = "changed_fields"
# why = "the set of fields that differ, then one lookup"
#
# [[wrong]]
# name = "values_guarded"
# breaks = "guard_rule"
# fails = ["failing_guard"]
# message = "new_values"
#
# [[wrong]]
# name = "floats_symbolic"
# breaks = "guard_rule"
# fails = ["failing_guard"]
# message = "new_factor"
#
# [[wrong]]
# name = "transpose_is_size"
# breaks = "guard_rule"
# fails = ["failing_guard"]
# message = "transposed"
#
# [[wrong]]
# name = "grad_not_guarded"
# breaks = "guard_rule"
# fails = ["failing_guard"]
# message = "no_grad"
#
# [[wrong]]
# name = "factor_integral_only"
# breaks = "guard_rule"
# fails = ["failing_guard"]
# message = "returned None; the grader measured 'value'"
# ///
"""Predict which second calls make Dynamo recompile, and which guard fails each time.

`scale(x, factor)` is compiled and called once, then called a second time in a different way. A
call is described by a dict: the shape and dtype of `x`, whether `x` is a transposed view (same
shape, other strides), the float `factor`, and whether grad mode is on. Write the rule as the
function `failing_guard(first, second)`: the kind of guard the second call fails, one of "dtype",
"size", "stride", "value", "global_state", or None when the second call reuses the first graph.
`SECOND_CALLS` holds examples; the grader tries pairs of calls of its own.
"""

import torch


def scale(x, factor):
    return torch.relu(x) * factor


def failing_guard(first, second):
    """The kind of guard that fails when the compiled `scale`, first called as `first`, is called
    as `second`; None when the second call reuses the first graph."""
    # BEGIN SOLUTION
    if second["dtype"] != first["dtype"]:
        return "dtype"
    if tuple(second["shape"]) != tuple(first["shape"]):
        return "size"
    if second["transposed"] != first["transposed"]:
        return "stride"
    if second["factor"] != first["factor"]:
        return "value"
    if second["grad"] != first["grad"]:
        return "global_state"
    return None
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: replace this guess with the rule.
    # return None
    # END STARTER
    # BEGIN FAIR table
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "stride"),
    #                     ("factor", "value"), ("grad", "global_state")):
    #     if first[field] != second[field]:
    #         return kind
    # return None
    # END FAIR
    # BEGIN FAIR changed_fields
    # changed = {key for key in first if first[key] != second[key]}
    # kinds = {"dtype": "dtype", "shape": "size", "transposed": "stride", "factor": "value", "grad": "global_state"}
    # return next((kinds[key] for key in kinds if key in changed), None)
    # END FAIR
    # BEGIN WRONG values_guarded
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "stride"),
    #                     ("factor", "value"), ("grad", "global_state")):
    #     if first[field] != second[field]:
    #         return kind
    # return "value"  # a new tensor means new values
    # END WRONG
    # BEGIN WRONG floats_symbolic
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "stride"), ("grad", "global_state")):
    #     if first[field] != second[field]:
    #         return kind
    # return None
    # END WRONG
    # BEGIN WRONG transpose_is_size
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "size"),
    #                     ("factor", "value"), ("grad", "global_state")):
    #     if first[field] != second[field]:
    #         return kind
    # return None
    # END WRONG
    # BEGIN WRONG grad_not_guarded
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "stride"), ("factor", "value")):
    #     if first[field] != second[field]:
    #         return kind
    # return None
    # END WRONG
    # BEGIN WRONG factor_integral_only
    # for field, kind in (("dtype", "dtype"), ("shape", "size"), ("transposed", "stride"), ("grad", "global_state")):
    #     if first[field] != second[field]:
    #         return kind
    # if first["factor"] != second["factor"] and (float(first["factor"]).is_integer() or float(second["factor"]).is_integer()):
    #     return "value"
    # return None
    # END WRONG


# The first call of the examples, and each second call as its changes to the first.
FIRST = {"shape": (4, 4), "dtype": "float32", "transposed": False, "factor": 2.0, "grad": True}
SECOND_CALLS = {
    "new_values": {},
    "float64": {"dtype": "float64"},
    "new_factor": {"factor": 3.0},
    "transposed": {"transposed": True},
    "bigger_batch": {"shape": (8, 4)},
    "no_grad": {"grad": False},
}

FAILING_GUARD = {name: failing_guard(FIRST, {**FIRST, **change}) for name, change in SECOND_CALLS.items()}


# BEGIN GRADER
DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16}


def _argument(call):
    x = torch.randn(*call["shape"], dtype=DTYPES[call["dtype"]])
    return x.t().contiguous().t() if call["transposed"] else x  # same shape, transposed strides


def classify(reason):
    for marker, kind in (("dtype mismatch", "dtype"), ("size mismatch", "size"), ("stride mismatch", "stride"),
                         ("GLOBAL_STATE", "global_state"), ("grad_mode", "global_state"), (" == ", "value")):
        if marker in reason:
            return kind
    return reason


def measured_guard(first, second):
    """Compile `scale`, make both calls, and classify the first failing guard (None: no recompile)."""
    from autograder.lab import tally_run

    def both_calls(compiled):
        for call in (first, second):
            with torch.set_grad_enabled(call["grad"]):
                compiled(_argument(call), call["factor"])

    tally = tally_run(scale, both_calls)
    return classify(tally.recompile_reasons[0]) if tally.recompiles else None


def expected_guards():
    """The truth for the examples (what the answers check compares FAILING_GUARD with today)."""
    return {name: measured_guard(FIRST, {**FIRST, **change}) for name, change in SECOND_CALLS.items()}


def draw_pairs(gen):
    """Hidden pairs for `variants` (the answers check with `function = "failing_guard"`): a first
    call drawn per seed (shape, dtype, layout, factor, grad mode), and second calls that change
    one field each, or nothing; then one pair that differs only in a factor that is no whole
    number on either side (a rule that sees only whole-number factors shows)."""
    def pick(options):
        return options[int(torch.randint(len(options), (1,), generator=gen))]

    rows, cols = (int(v) for v in torch.randint(2, 9, (2,), generator=gen))
    first = {"shape": (rows, cols), "dtype": pick(["float32", "float64"]), "transposed": pick([False, True]),
             "factor": pick([0.5, 2.0, 3.0]), "grad": pick([True, False])}
    changes = [{}, {"dtype": "bfloat16"}, {"shape": (rows + int(torch.randint(1, 5, (1,), generator=gen)), cols)},
               {"shape": (rows, 1)}, {"transposed": not first["transposed"]}, {"factor": first["factor"] + 1.5},
               {"factor": first["factor"]}, {"grad": not first["grad"]}]
    fraction = pick([0.25, 0.75, 1.25])  # and a pair whose two factors are both fractions
    pairs = [{"first": first, "second": {**first, **change}} for change in changes]
    return pairs + [{"first": {**first, "factor": fraction}, "second": {**first, "factor": fraction + pick([0.5, 1.0])}}]


def guard_for(params):
    """The truth for one drawn pair."""
    return measured_guard(params["first"], params["second"])


def calls(gen):
    return [(torch.randn(4, 4, generator=gen), 2.0)]
# END GRADER


if __name__ == "__main__":
    for name, change in SECOND_CALLS.items():
        print(f"{name:>13}: second call changes {change or 'nothing'}; you predict {FAILING_GUARD[name]!r}")

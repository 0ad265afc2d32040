# Exercise guards_predict: Which guard fails?
# Edit this file, then check it with:  ./course check guards_predict
# Stuck? ./course hint guards_predict   Start over: ./course reset guards_predict
"""Predict which second calls make Dynamo recompile, and which guard fails each time.

`scale(x, factor)` is compiled and called once, then called a second time in a different way. A
call is described by a dict: the shape and dtype of `x`, whether `x` is a transposed view (same
shape, other strides), the float `factor`, and whether grad mode is on. Write the rule as the
function `failing_guard(first, second)`: the kind of guard the second call fails, one of "dtype",
"size", "stride", "value", "global_state", or None when the second call reuses the first graph.
`SECOND_CALLS` holds examples; the grader tries pairs of calls of its own.

What the grader checks:
- For a first and a second call of the compiled `scale`, `failing_guard` names the kind of guard the second call fails, or None when it reuses the first graph.
"""

import torch


def scale(x, factor):
    return torch.relu(x) * factor


def failing_guard(first, second):
    """The kind of guard that fails when the compiled `scale`, first called as `first`, is called
    as `second`; None when the second call reuses the first graph."""
    # TODO: replace this guess with the rule.
    return None


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


if __name__ == "__main__":
    for name, change in SECOND_CALLS.items():
        print(f"{name:>13}: second call changes {change or 'nothing'}; you predict {FAILING_GUARD[name]!r}")

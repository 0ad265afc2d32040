# /// exercise
# format_version = 1
# title = "Which guard fails?"
# syllabus = ["1.3"]
# entry = "scale"
# starter_fails = ["will_recompile", "failing_guard"]
# hints = [
#   "Run the file: it compiles `scale`, makes the first call, then each second call, and prints what Dynamo reports. Or reason it out first and use the run to check yourself.",
#   "A tensor argument is guarded on its metadata (dtype, device, shape, strides, requires_grad), never on its values. A Python float argument is guarded on its value. Global state such as grad mode is guarded too.",
#   "Exactly one of the six second calls reuses the first graph. Of those that recompile, each fails a different kind of guard.",
#   "Read the reason printed after 'Recompiling function': 'dtype mismatch' is \"dtype\", 'size mismatch' is \"size\", 'stride mismatch' is \"stride\", a `factor == 2.0` line is \"value\", and the grad-mode one is \"global_state\".",
# ]
#
# [[checks]]
# kind = "answers"
# name = "will_recompile"
# constant = "WILL_RECOMPILE"
# truth = "expected_recompiles"
# points = 3
# [[checks]]
# kind = "answers"
# name = "failing_guard"
# constant = "FAILING_GUARD"
# truth = "expected_guards"
# points = 3
# ///
"""Predict which calls make Dynamo recompile, and which guard fails each time.

`scale(x, factor)` is compiled and first called as `scale(torch.randn(4, 4), 2.0)`. Each entry of
`SECOND_CALLS` then calls the compiled function once more in a different way. Fill in:

- `WILL_RECOMPILE[name]`: True if that second call compiles a new graph, False if it reuses the
  first one;
- `FAILING_GUARD[name]`: for calls that recompile, the kind of guard that failed, one of
  "dtype", "size", "stride", "value", "global_state"; use None for calls that do not recompile.

The grader runs every experiment itself and compares.
"""

import torch


def scale(x, factor):
    return torch.relu(x) * factor


def first_call(compiled):
    return compiled(torch.randn(4, 4), 2.0)


def _without_grad(compiled):
    with torch.no_grad():
        return compiled(torch.randn(4, 4), 2.0)


SECOND_CALLS = {
    "new_values": lambda compiled: compiled(torch.randn(4, 4), 2.0),
    "float64": lambda compiled: compiled(torch.randn(4, 4, dtype=torch.float64), 2.0),
    "new_factor": lambda compiled: compiled(torch.randn(4, 4), 3.0),
    "transposed": lambda compiled: compiled(torch.randn(4, 4).t(), 2.0),
    "bigger_batch": lambda compiled: compiled(torch.randn(8, 4), 2.0),
    "no_grad": _without_grad,
}

# BEGIN SOLUTION
WILL_RECOMPILE = {"new_values": False, "float64": True, "new_factor": True, "transposed": True,
                  "bigger_batch": True, "no_grad": True}
FAILING_GUARD = {"new_values": None, "float64": "dtype", "new_factor": "value", "transposed": "stride",
                 "bigger_batch": "size", "no_grad": "global_state"}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None in WILL_RECOMPILE with True or False,
# # and each None in FAILING_GUARD with the kind of guard that fails (or leave None).
# WILL_RECOMPILE = {"new_values": None, "float64": None, "new_factor": None, "transposed": None,
#                   "bigger_batch": None, "no_grad": None}
# FAILING_GUARD = {"new_values": None, "float64": None, "new_factor": None, "transposed": None,
#                  "bigger_batch": None, "no_grad": None}
# END STARTER


def experiment(name):
    """Compile `scale`, make the first call, then the named second call; return Dynamo's tally."""
    from autograder.lab import tally_run

    def both_calls(compiled):
        first_call(compiled)
        SECOND_CALLS[name](compiled)

    return tally_run(scale, both_calls)


# BEGIN GRADER
def classify(reason):
    for marker, kind in (("dtype mismatch", "dtype"), ("size mismatch", "size"), ("stride mismatch", "stride"),
                         ("GLOBAL_STATE", "global_state"), ("grad_mode", "global_state"), (" == ", "value")):
        if marker in reason:
            return kind
    return reason


def _runs():
    return {name: experiment(name) for name in SECOND_CALLS}


def expected_recompiles():
    return {name: tally.recompiles > 0 for name, tally in _runs().items()}


def expected_guards():
    return {name: (classify(tally.recompile_reasons[0]) if tally.recompiles else None) for name, tally in _runs().items()}


def calls(gen):
    return [(torch.randn(4, 4, generator=gen), 2.0)]
# END GRADER


if __name__ == "__main__":
    for name in SECOND_CALLS:
        tally = experiment(name)
        print(f"{name:>13}: {tally.recompiles} recompile(s)  {tally.recompile_reasons}")

# Exercise guards_predict: Which guard fails?
# Edit this file, then check it with:  ./course check guards_predict
# Stuck? ./course hint guards_predict   Start over: ./course reset guards_predict
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

# TODO: replace each None in WILL_RECOMPILE with True or False,
# and each None in FAILING_GUARD with the kind of guard that fails (or leave None).
WILL_RECOMPILE = {"new_values": None, "float64": None, "new_factor": None, "transposed": None,
                  "bigger_batch": None, "no_grad": None}
FAILING_GUARD = {"new_values": None, "float64": None, "new_factor": None, "transposed": None,
                 "bigger_batch": None, "no_grad": None}


def experiment(name):
    """Compile `scale`, make the first call, then the named second call; return Dynamo's tally."""
    from autograder.lab import tally_run

    def both_calls(compiled):
        first_call(compiled)
        SECOND_CALLS[name](compiled)

    return tally_run(scale, both_calls)


if __name__ == "__main__":
    for name in SECOND_CALLS:
        tally = experiment(name)
        print(f"{name:>13}: {tally.recompiles} recompile(s)  {tally.recompile_reasons}")

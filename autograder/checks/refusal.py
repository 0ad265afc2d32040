"""The ``refuses`` kind: inputs the task says are invalid must still be refused by the compiled code.

A fix can make a function compile by deleting its input validation (a Python ``if ...: raise``
on a captured ``.item()`` that Dynamo cannot guard on). On valid inputs nothing changes, so
``correct`` cannot tell. This kind runs the compiled entry on inputs that must be refused and
passes only when every one of them raises while the compiled code runs.

Three parts, so that the trust boundary can run each where it belongs:

- ``refused_inputs(spec, master, calls)``, reference side: the master's function named by
  ``inputs``, called with the schedule the grader drew (so the invalid inputs vary with the seed
  like the valid ones), returns one tuple of arguments per input that must be refused;
- ``measure_refusals(entry, inputs, options, prefer_file, driver)``, learner side: a fresh compile
  of the learner's entry (``probe.measure``, the grader's counting backend and options), one call
  per input; plain data back: for each input whether it returned and, if it raised, the
  error's kind (``exception``: raised while the code ran; ``graph_break``/``compiler_error``:
  the compiler refused to compile), type and first line;
- ``decide_refusals(spec, outcomes, exercise)``, judge side, from that plain data alone.

Parameters: ``inputs`` (required: the master function), ``types`` (optional: exception type
names that count as a refusal, e.g. ``["RuntimeError", "ValueError"]``; default: any exception
raised while the code runs).
"""

from __future__ import annotations

from autograder.checks.core import Context, _lesson, register
from autograder.format.result import CheckResult


def refused_inputs(spec, master, calls: list) -> list:
    """The argument tuples the task says must be refused, drawn by the master from the schedule."""
    return list(getattr(master, spec.params["inputs"])(calls))


def measure_refusals(entry, inputs: list, options: dict, prefer_file: str | None = None, driver=None) -> list[dict]:
    """One outcome per input, as plain data: {"returned": bool, "kind", "type", "message"}."""
    from autograder.sandbox import probe

    measured = probe.measure(entry, inputs, options, prefer_file=prefer_file, stop_on_error=False, driver=driver)
    outcomes = []
    for output in measured.outputs:
        if isinstance(output, BaseException):
            described = probe.describe_error(output, prefer_file)
            outcomes.append({"returned": False, "kind": described["kind"], "type": type(output).__name__,
                             "message": described["message"].splitlines()[0][:300] if described["message"] else ""})
        else:
            outcomes.append({"returned": True, "kind": None, "type": None, "message": ""})
    return outcomes


def decide_refusals(spec, outcomes: list[dict], exercise) -> CheckResult:
    """Pass when every input was refused by an error raised while the compiled code ran."""
    types = spec.params.get("types")
    total = len(outcomes)
    if total == 0:
        return CheckResult.outcome(spec, False, "No invalid input was run, so nothing shows that they are refused.")
    for number, outcome in enumerate(outcomes, start=1):
        what = f"Invalid input {number} of {total}"
        if outcome["returned"]:
            return CheckResult.outcome(spec, False, f"{what} returned a result instead of being refused: the validation "
                                       f"the task asks you to keep is gone. {_lesson(spec, exercise)}")
        if outcome["kind"] != "exception":
            return CheckResult.outcome(spec, False, f"{what} was refused by the compiler, not by your code ({outcome['message']}): "
                                       f"the function must compile, and reject the input when it runs. {_lesson(spec, exercise)}")
        if types and outcome["type"] not in types:
            return CheckResult.outcome(spec, False, f"{what} raised {outcome['type']} ({outcome['message']}); a refusal here is one of "
                                       f"{', '.join(types)}. {_lesson(spec, exercise)}")
    return CheckResult.outcome(spec, True, f"All {total} invalid inputs were refused while the compiled code ran.")


@register("refuses")
def check_refuses(spec, ctx: Context) -> CheckResult:
    if ctx.measurement.error:
        return CheckResult.outcome(spec, False, "Not measured: the valid inputs did not all run (see the other checks).")
    inputs = refused_inputs(spec, ctx.master, ctx.calls)
    outcomes = measure_refusals(ctx.entry, inputs, ctx.options, prefer_file=ctx.submission_file, driver=ctx.driver)
    return decide_refusals(spec, outcomes, ctx.exercise)

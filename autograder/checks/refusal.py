"""The decision of ``refuses``: inputs the task says are invalid must still be refused by the compiled code.

A fix can make a function compile by deleting its input validation (a Python ``if ...: raise``
on a captured ``.item()`` that Dynamo cannot guard on). On valid inputs nothing changes, so
``correct`` cannot tell. The measure part (``autograder.sandbox.kinds.refusal``) runs a fresh
compile of the learner's entry on the invalid inputs the master drew from the schedule and
reports, per input, whether it returned or what raised; this decides from that plain data alone:
it passes only when every invalid input raised while the compiled code ran (not a compile
failure), of one of ``types`` when they are given, and every valid call placed between them (at
places only the judge knows) returned.

Parameters: ``inputs`` (required: the master function), ``types`` (optional: exception type
names that count as a refusal, e.g. ``["RuntimeError", "ValueError"]``; default: any exception
raised while the code runs).
"""

from __future__ import annotations

from autograder.checks.core import _lesson, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Either, ListOf, Nothing, Record, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult

OUTCOME = Record({"returned": Bool(), "kind": Either(Text(40), Nothing()), "type": Either(Text(200), Nothing()),
                  "message": Text(400)})
REFUSES_FACTS = Record({}, {"not_run": Bool(), "outcomes": ListOf(OUTCOME, 1000), "measure_failed": Text(2000)})


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


def decide_mixed(spec, outcomes: list[dict], refused: list[bool], exercise) -> CheckResult:
    """The invalid inputs came between valid ones: every valid one must return, then as above."""
    if len(outcomes) != len(refused):
        return CheckResult.outcome(spec, False, f"{len(outcomes)} outcomes came back for {len(refused)} inputs: the grade cannot be trusted.")
    for outcome, invalid in zip(outcomes, refused):
        if not invalid and not outcome["returned"]:
            return CheckResult.outcome(spec, False, f"A valid batch, run among the invalid ones, raised {outcome['type']} "
                                       f"({outcome['message']}): what is refused must depend on the batch, not on the calls "
                                       f"before it. {_lesson(spec, exercise)}")
    return decide_refusals(spec, [outcome for outcome, invalid in zip(outcomes, refused) if invalid], exercise)


@decides("refuses", facts=REFUSES_FACTS)
def check_refuses(spec, ev: Evidence) -> CheckResult:
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if ev.measurement.error or ev.facts.get("not_run"):
        return CheckResult.outcome(spec, False, "Not measured: the valid inputs did not all run (see the other checks).")
    refused = ev.reference.get("refused")
    if refused is None:
        return decide_refusals(spec, ev.facts.get("outcomes") or [], ev.exercise)
    return decide_mixed(spec, ev.facts.get("outcomes") or [], list(refused), ev.exercise)

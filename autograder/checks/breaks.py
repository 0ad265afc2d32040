"""Check kinds for chapter 2 (graph breaks): escape hatches, captured output, dodges, custom operators.

Decided in the judge, from plain data (the measure parts are in ``autograder.sandbox.kinds.breaks``):

- ``escape_hatch``: the helper's work really is in the graph, held by ``nonstrict_trace`` or by a
  custom operator, not run outside it (a disabled function) nor smuggled in with ``allow_in_graph``
  (found by identity in Dynamo's registry, whatever name or alias the file uses);
- ``output``: each compiled call prints (or logs) what the reference prints when run eagerly; the
  message speaks of a reordered print only where the file made ``print`` reorderable;
- ``no_dodge``: none of the known ways to make a break *look* fixed is used, with the reason why
  each is not a fix;
- ``opcheck``: ``torch.library.opcheck`` passes on the learner's custom operator (schema, fake
  kernel, autograd registration, AOT tracing), and so do the same checks made by a plain call
  that a kernel cannot tell from normal use; and no argument is declared as written that no
  sample's call changed (``mutates_args="unknown"`` on a kernel that writes nothing).
"""

from __future__ import annotations

import ast

from autograder.checks.core import _lesson, measure_failed, unfed_calls_message
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Int, ListOf, Maybe, Record, Text
from autograder.checks.registry import decides
from autograder.format import syntax
from autograder.format.result import CheckResult

NAMES = ListOf(Text(400), 1000)

# -- escape_hatch ---------------------------------------------------------------------------------

_ALLOW_IN_GRAPH_WHY = ("That is torch.compiler.allow_in_graph: Dynamo puts the function into the graph as one opaque call and "
                       "checks nothing about it. A real backend traces it once with fake tensors and never runs the Python "
                       "again, so a print or a global it touches acts at compile time only")


def _nonstrict_nodes(targets: list[str]) -> int:
    return sum("flat_apply" in target for target in targets)


def _has_op(targets: list[str], op: str) -> bool:
    """``op`` is "aten.sin" or "course.interp": match the graph's "aten.sin.default" and the like."""
    return any(target == op or target.startswith(op + ".") for target in targets)


def _opaque(ev: Evidence) -> list[str]:
    """The file's functions a graph calls as one opaque node: marked allow_in_graph (by identity), or
    seen as graph nodes whose code is outside torch."""
    return sorted(set(ev.facts.get("opaque") or []) | set(ev.measurement.user_calls))


@decides("escape_hatch", facts=Record({}, {"opaque": NAMES, "measure_failed": Text(2000)}))
def check_escape_hatch(spec, ev: Evidence) -> CheckResult:
    m, via = ev.measurement, spec.params.get("via", "any")
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if m.error:
        return CheckResult.outcome(spec, False, "Not measured: no call compiled and ran cleanly (the first failed check says why).")
    opaque = _opaque(ev)
    if opaque:
        names = ", ".join(opaque)
        return CheckResult.outcome(spec, False, f"The graph calls your function(s) {names} as single opaque nodes. {_ALLOW_IN_GRAPH_WHY}. "
                                   f"Use {'torch._dynamo.nonstrict_trace' if via != 'custom_op' else 'torch.library.custom_op'} instead. "
                                   f"{_lesson(spec, ev.exercise)}")
    nonstrict, custom = _nonstrict_nodes(m.graph_targets), sorted(set(m.custom_ops))
    holders = ([f"{nonstrict} nonstrict_trace call(s)"] if nonstrict else []) + ([f"the custom op(s) {', '.join(custom)}"] if custom else [])
    if via == "nonstrict_trace" and not nonstrict:
        return CheckResult.outcome(spec, False, "The Dynamo graph has no nonstrict_trace call (a flat_apply node): the helper was "
                                   f"not put behind torch._dynamo.nonstrict_trace. {_lesson(spec, ev.exercise)}")
    if via == "custom_op" and not custom:
        return CheckResult.outcome(spec, False, "The Dynamo graph calls no custom operator: the helper must run as an operator "
                                   f"registered with torch.library (custom_op, or define and impl). {_lesson(spec, ev.exercise)}")
    if via == "any" and not holders:
        return CheckResult.outcome(spec, False, "The graph holds no escape hatch (no nonstrict_trace call, no custom op). "
                                   f"{_lesson(spec, ev.exercise)}")
    wanted = list(spec.params.get("ops", []))
    missing = [op for op in wanted if not _has_op(m.aot_targets, op)]
    if missing:
        return CheckResult.outcome(spec, False, f"The AOT graph lacks {', '.join(missing)}: the helper's work ran outside the compiled "
                                   "graph (a disabled function, or code that is not traced) instead of being traced through. "
                                   f"{_lesson(spec, ev.exercise)}")
    shown = f"; the AOT graph holds {', '.join(wanted)}" if wanted else ""
    return CheckResult.outcome(spec, True, f"The helper runs inside the graph through {' and '.join(holders)}{shown}.")


# -- output ---------------------------------------------------------------------------------------

def _lines(seen: dict, stream: str) -> list[str]:
    if stream == "logging":
        return list(seen.get("logs", []))
    return seen.get("stdout", "").splitlines()


@decides("output", facts=Record({}, {"print_reorderable": Bool(), "measure_failed": Text(2000),
                                     "eager_stdout": ListOf(Text(4000), 10_000)}))
def check_output(spec, ev: Evidence) -> CheckResult:
    stream, expect = spec.params.get("stream", "stdout"), spec.params.get("expect", "reference")
    what = "printed" if stream == "stdout" else "logged"
    got = ev.measurement.call_output
    if len(got) < ev.calls and ev.measurement.error:
        return CheckResult.outcome(spec, False, f"Call {len(got)} of {ev.calls} failed, so the output cannot be compared "
                                   "(the first failed check says why).")
    if len(got) < ev.calls:
        return CheckResult.outcome(spec, False, f"Only {len(got)} of {ev.calls} calls were recorded, so the output cannot be compared.")
    for number, (seen, reference) in enumerate(zip(got, ev.expected_output), start=1):
        actual = _lines(seen, stream)
        wanted = [] if expect == "silent" else _lines(reference, stream)
        if actual == wanted:
            continue
        message = f"Call {number} of {ev.calls} {what} {actual!r}; the reference {what} {wanted!r} when run eagerly."
        eager = ev.facts.get("eager_stdout") or []
        if (stream == "stdout" and ev.facts.get("print_reorderable") and len(actual) < len(wanted)
                and number <= len(eager) and _lines({"stdout": eager[number - 1]}, stream) == wanted):
            message += (f" Your code run eagerly prints exactly the reference's lines; compiled, {len(wanted) - len(actual)} of "
                        "them are lost. On torch 2.13 a print made reorderable is dropped without a warning when it sits in "
                        "a function the compiled function calls (Dynamo inlines that function): print from the compiled "
                        "function itself, or from the eager code around it.")
        elif wanted and not actual:
            message += (" The message is gone: a call behind `if not torch.compiler.is_compiling()`, one listed in "
                        "ignore_logging_functions, or a deleted one never runs in compiled code, and this task keeps the message.")
        elif len(actual) > len(wanted):
            message += (" It ran more often than in eager: code that runs while Dynamo traces (allow_in_graph) prints at compile"
                        " time too.")
        elif wanted and actual and stream == "stdout" and ev.facts.get("print_reorderable"):
            message += (" Your file made print reorderable: a reordered print runs after the graph, so it shows values as they"
                        " are at the end of the call (after any in-place change), not as they were at the print.")
        elif wanted and actual and sorted(actual) == sorted(wanted):
            message += " The same lines, in another order."
        return CheckResult.outcome(spec, False, f"{message} {_lesson(spec, ev.exercise)}")
    count = sum(len(_lines(seen, stream)) for seen in got)
    return CheckResult.outcome(spec, True, f"All {len(got)} compiled calls {what} what the reference {what} ({count} line(s) in all)."
                               if expect == "reference" else f"Nothing was {what} over {len(got)} calls.")


# -- no_dodge -------------------------------------------------------------------------------------

_DODGE_WHY = {
    "disable": ("torch.compiler.disable does not remove a break, it is one: Dynamo stops at the call of the disabled function "
                "(with fullgraph=True, an error), and the work in it never reaches the graph"),
    "allow_in_graph": _ALLOW_IN_GRAPH_WHY,
    "is_compiling": ("a branch on torch.compiler.is_compiling() makes compiled code do something else than eager code, so a "
                     "test that only compiles passes while the work it should do is skipped"),
    "set_stance": ("torch.compiler.set_stance changes whether code is compiled at all: 'force_eager' runs Python eagerly, so "
                   "nothing is compiled and no break is ever found"),
    "eager_fallback": "calls that run no compiled code at all hide their breaks instead of fixing them",
}


def _names_used(source: str) -> set[str]:
    """Names and attribute names used anywhere but under ``if __name__ == "__main__":``."""
    tree = syntax.parse(source)
    body = [node for node in tree.body if not (isinstance(node, ast.If) and "__main__" in ast.dump(node.test))]
    used = set()
    for top in body:
        for node in ast.walk(top):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.alias):
                used.add(node.name.split(".")[-1])
    return used


def find_dodges(ev: Evidence, forbid) -> dict[str, str]:
    """{dodge: what was found} for each forbidden dodge the submission uses: names read from the exact
    text the grader scanned, functions found by identity in the learner's process, measured counts."""
    m, found = ev.measurement, {}
    try:
        used = _names_used(ev.source)
    except (SyntaxError, ValueError, RecursionError):
        used = set()
    if "disable" in forbid:
        # Names the file itself uses: what Dynamo adds to the module (its own disabled helpers) is not the learner's.
        disabled = [name for name in ev.facts.get("disabled") or [] if name.split(".")[0] in used]
        reasons = [b["reason"] for b in m.break_sites] + ([m.error["message"]] if m.error else [])
        if disabled:
            found["disable"] = f"{', '.join(disabled)} is wrapped by torch.compiler.disable"
        elif any("disable()" in reason or "disabled function" in reason for reason in reasons):
            found["disable"] = "the graph stopped at a call of a disable()d function"
        elif "disable" in used:
            found["disable"] = "your file uses torch.compiler.disable"
    opaque = _opaque(ev)
    if "allow_in_graph" in forbid and (opaque or "allow_in_graph" in used):
        found["allow_in_graph"] = (f"{', '.join(opaque)} would run as opaque graph node(s): marked with allow_in_graph" if opaque
                                   else "your file uses torch.compiler.allow_in_graph")
    if "is_compiling" in forbid and used & {"is_compiling", "is_dynamo_compiling"}:
        found["is_compiling"] = "your code asks torch.compiler.is_compiling()"
    if "set_stance" in forbid and "set_stance" in used:
        found["set_stance"] = "your code calls torch.compiler.set_stance"
    if "eager_fallback" in forbid and not m.error and m.compiled_calls < m.calls:
        found["eager_fallback"] = f"only {m.compiled_calls} of {m.calls} calls ran compiled code" + (
            f" ({unfed_calls_message(m.unfed_calls, ev.exercise, m.partly_fed_calls)})" if m.unfed_calls or m.partly_fed_calls else "")
    return found


@decides("no_dodge", facts=Record({}, {"disabled": NAMES, "opaque": NAMES, "measure_failed": Text(2000)}))
def check_no_dodge(spec, ev: Evidence) -> CheckResult:
    from autograder.format.exercise import DODGES

    failed = measure_failed(spec, ev)
    if failed:
        return failed
    forbid = spec.params.get("forbid") or sorted(DODGES)
    found = find_dodges(ev, forbid)
    if not found:
        return CheckResult.outcome(spec, True, f"No dodge found (looked for: {', '.join(forbid)}).")
    parts = [f"{what}: {_DODGE_WHY[dodge]}" for dodge, what in found.items()]
    return CheckResult.outcome(spec, False, "Not a fix: " + ". Also, ".join(parts) + ". " + _lesson(spec, ev.exercise))


# -- opcheck --------------------------------------------------------------------------------------

_OPCHECK_WHY = {
    "test_schema": "the schema does not say what the function does: an argument it writes to must be in mutates_args "
                   "(or the function must write to a copy)",
    "test_faketensor": "the fake kernel (register_fake) does not describe the real one: each output needs the same shape, "
                       "dtype and device as the real kernel's",
    "test_autograd_registration": "the autograd registration does not match the operator",
    "test_aot_dispatch_dynamic": "the operator does not survive AOT tracing with dynamic shapes (often a fake kernel that is "
                                 "missing or uses concrete sizes)",
}


OPCHECK_FACTS = Record({"registered": Bool()}, {"samples": Int(0, 10**6), "measure_failed": Text(2000),
                                                "failed": Maybe(Record({"sample": Int(0, 10**6)}, {"opcheck": Text(2000), "direct": Text(2000)})),
                                                "unwritten": ListOf(Text(200), 20)})


@decides("opcheck", facts=OPCHECK_FACTS)
def check_opcheck(spec, ev: Evidence) -> CheckResult:
    qualname = spec.params["op"]
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if not ev.facts.get("registered"):
        return CheckResult.outcome(spec, False, f"No operator named {qualname} is registered. Register it with "
                                   f"@torch.library.custom_op(\"{qualname}\", mutates_args=...). {_lesson(spec, ev.exercise)}")
    samples = ev.facts.get("samples", 0)
    problem = ev.facts.get("failed")
    if problem and problem.get("direct"):
        return CheckResult.outcome(spec, False, f"{qualname}, sample {problem['sample']} of {samples}: {problem['direct']}. A schema "
                                   f"must say what the operator does, in every call, not only under torch.library.opcheck. "
                                   f"{_lesson(spec, ev.exercise)}")
    if problem:
        text = problem.get("opcheck", "")
        test = next((t for t in _OPCHECK_WHY if t in text), None)
        why = f" In short: {_OPCHECK_WHY[test]}." if test else ""
        return CheckResult.outcome(spec, False, f"torch.library.opcheck on {qualname} failed for sample {problem['sample']} of "
                                   f"{samples}: {text[:400]}.{why} {_lesson(spec, ev.exercise)}")
    unwritten = ev.facts.get("unwritten") or []
    if unwritten:
        names = ", ".join(f"`{name}`" for name in unwritten)
        return CheckResult.outcome(spec, False, f"{qualname}'s schema declares {names} as written to (mutates_args), but no call "
                                   f"on the grader's {samples} sample input(s) changed it: declare exactly what the kernel writes "
                                   f"(mutates_args=() for a kernel that writes nothing; \"unknown\" declares every argument). "
                                   f"The compiler believes the declaration, and orders and copies around writes that never "
                                   f"happen. {_lesson(spec, ev.exercise)}")
    return CheckResult.outcome(spec, True, f"torch.library.opcheck passed on {qualname} for {samples} sample input(s) "
                               "(schema, fake kernel, autograd registration, AOT tracing), and so did a plain call of each.")

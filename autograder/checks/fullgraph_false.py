"""Check kinds for chapter 2, part 2 (working with fullgraph=False, sections 2.5-2.5.5.6).

With ``fullgraph=False`` "passing" is not "one graph". It is: exactly the breaks the exercise
allows and no others, no frame silently skipped, the heavy work inside graphs, and a strict
setting (``error_on_graph_break(True)``) really in place where the task asks for one. Decided in
the judge from plain data (the probe's part: ``autograder.sandbox.kinds.fullgraph_false``):

- ``breaks_allowed``: every break Dynamo handled (``Measurement.break_events``, recorded where
  Dynamo reports it, so breaks with no graph before them count too) is of an allowed *type*
  (Dynamo's ``gb_type``, never message text), optionally only in a named function
  (``"TYPE @ function"``); ``required`` types must still be there (a third-party break the
  learner may not delete); with ``callee``, a break at a call of a disabled function must be at a
  call of that function (the work the task keeps eager, not a copy of it moved elsewhere);
- ``skipped_frames``: no frame of the learner's code was skipped (Dynamo gave up on it and ran it
  eagerly, which raises nothing under fullgraph=False), or none of ``functions`` when given (a
  small helper may be skipped by design, 2.5.5.6), and each of ``ops`` is in a graph: the heavy
  work really was compiled;
- ``probe_variant``: the grader makes Dynamo meet a graph break at each call the helper's frame
  makes, one site per run, without touching the helper's code, globals, decorators or ``with``
  blocks, and expects every run to raise that break, located in the helper. That proves a strict
  setting (``error_on_graph_break(True)``) covers the helper's work, whatever form it takes
  (decorator, ``with`` block, a strict caller).
"""

from __future__ import annotations

import ast
import re

from autograder.checks.core import _lesson, _short, _where, describe_failure, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Int, ListOf, Maybe, Record, Text
from autograder.checks.registry import decides
from autograder.format import syntax
from autograder.format.explain import explain
from autograder.format.result import CheckResult

# -- shared helpers ---------------------------------------------------------------------------------


def _allowed_entry(entry: str) -> tuple[str, str | None]:
    """``"TYPE"`` or ``"TYPE @ function"`` -> (type, function or None)."""
    kind, _, where = str(entry).partition(" @ ")
    return kind.strip(), (where.strip() or None)


def _in_function(event: dict, name: str) -> bool:
    return name in event.get("functions", []) or name in (event.get("function"), event.get("frame"))


def event_allowed(event: dict, allowed) -> bool:
    for entry in allowed:
        kind, where = _allowed_entry(entry)
        if event.get("type") == kind and (where is None or _in_function(event, where)):
            return True
    return False


def _distinct(events: list[dict]) -> list[dict]:
    """One event per (type, file, line): a nested break is reported once per level and per call."""
    seen, kept = set(), []
    for event in events:
        key = (event.get("type"), event.get("file"), event.get("line"))
        if key not in seen:
            seen.add(key)
            kept.append(event)
    return kept


def _describe_event(event: dict) -> str:
    where = _where(event)
    cause = event.get("cause")
    because = f" (caused by: {cause})" if cause and cause != event.get("type") else ""
    skipped = "; Dynamo gave up on the whole frame" if event.get("skips_frame") else ""
    return f"\"{event.get('type')}\"{because}{' at ' + where if where else ''}{skipped}"


def _section_of(event: dict) -> str:
    return explain(event.get("type") or event.get("reason", "")).section


def _not_measured(spec, ev: Evidence) -> CheckResult:
    return CheckResult.outcome(spec, False, f"Not measured: {describe_failure(ev.measurement.error)}. "
                               "The first failed check says why.")


# -- breaks_allowed ---------------------------------------------------------------------------------

@decides("breaks_allowed")
def check_breaks_allowed(spec, ev: Evidence) -> CheckResult:
    m, allowed = ev.measurement, list(spec.params.get("allowed", []))
    if m.error and m.error["kind"] == "graph_break":
        return CheckResult.outcome(spec, False, f"{describe_failure(m.error)}. Under fullgraph=False a break is an error only where "
                                   "error_on_graph_break(True) (or fullgraph=True) is in effect: this break must be "
                                   f"tolerated, or removed. {_lesson(spec, ev.exercise)}")
    if m.error:
        return _not_measured(spec, ev)
    events = _distinct([event for event in m.break_events if event.get("user", True)])
    unexpected = [event for event in events if not event_allowed(event, allowed)]
    wanted = [str(kind) for kind in spec.params.get("required", [])]
    missing = [kind for kind in wanted if not any(event.get("type") == kind for event in events)]
    shown = ", ".join(f'"{entry}"' for entry in allowed) or "none"
    if unexpected:
        first = unexpected[0]
        sections = sorted({_section_of(event) for event in unexpected})
        more = f" (and {len(unexpected) - 1} more)" if len(unexpected) > 1 else ""
        return CheckResult.outcome(spec, False, f"{len(events)} distinct break(s); {len(unexpected)} not allowed here: "
                                   f"{_describe_event(first)}{more}. Allowed here: {shown}. (Lesson section(s) "
                                   f"{', '.join(sections)} explain these breaks.) {_lesson(spec, ev.exercise)}")
    if missing:
        return CheckResult.outcome(spec, False, f"The break \"{missing[0]}\" is gone, and this task keeps it: it is in code the task says "
                                   f"you may not change, so tolerate it instead of removing it. {_lesson(spec, ev.exercise)}")
    callee = spec.params.get("callee")
    disabled = [(event, match[1]) for event in events
                if callee and (match := _DISABLED_CALL.search(str(event.get("reason", ""))))]
    elsewhere = [(event, name) for event, name in disabled if name.split(".")[-1] != callee]
    if elsewhere:
        event, other = elsewhere[0]
        return CheckResult.outcome(spec, False, f"The break that runs code eagerly is at a call of `{other}`"
                                   f"{' at ' + _where(event) if _where(event) else ''}, not of `{callee}`: the task keeps "
                                   f"`{callee}` as the function that runs eagerly, called as it is now. Disable `{callee}` itself "
                                   f"instead of moving its work. {_lesson(spec, ev.exercise)}")
    if not events:
        return CheckResult.outcome(spec, True, "No graph break at all.")
    kinds = sorted({event["type"] for event in events})
    return CheckResult.outcome(spec, True, f"{len(events)} distinct break(s), each of an allowed type: {', '.join(kinds)}.")


# The function a "Skip calling/inlining `torch.compiler.disable()`d function" break names.
_DISABLED_CALL = re.compile(r"Skip (?:calling|inlining) function `?<function ([\w.<>]+) at 0x")


# -- skipped_frames ---------------------------------------------------------------------------------

_TARGET_NAME = re.compile(r"<(?:built-in )?(?:method|function) ([\w.]+)")


def op_names(targets: list[str]) -> set[str]:
    """Readable names of the graphs' targets: "<built-in method matmul of ...>" -> "matmul"."""
    names = set()
    for target in targets:
        match = _TARGET_NAME.match(target)
        names.add(match[1].split(".")[-1] if match else target.split(".")[-1])
    return names


_SKIP_WHY = {
    "graph break in loop": "a break inside a for/while loop cannot be resumed (lesson section 2.5.5.1)",
    "Graph break under GenericContextWrappingVariable": "a break inside a `with` block of a user context manager cannot be resumed (lesson section 2.5.5.2)",
    "Dynamo recompile limit exceeded": "the function hit the recompile limit, so Dynamo stopped compiling it (lesson section 2.5.5.4)",
}


_RESUME = re.compile(r"^torch_dynamo_resume_in_(\w+?)_at_(\d+)$")


def _frame_name(function: str) -> str:
    """How a learner knows a frame: `f`, or the rest of `f` after line N (a resume function)."""
    if function == "?":
        return "a function (after it hit the recompile limit)"
    match = _RESUME.match(function)
    return f"the rest of `{match[1]}` after line {match[2]}" if match else f"the frame of `{function}`"


def _frame_of(function: str, names: list[str]) -> bool:
    """``function`` is one of ``names``, or a resume function Dynamo made from one (the rest of it after a break)."""
    return function == "?" or any(function == name or function.startswith(f"torch_dynamo_resume_in_{name}_at_") for name in names)


@decides("skipped_frames")
def check_skipped_frames(spec, ev: Evidence) -> CheckResult:
    m = ev.measurement
    if m.error:
        return _not_measured(spec, ev)
    only = list(spec.params.get("functions", []))
    skipped = [site for site in m.skipped_sites if site.get("user") and (not only or _frame_of(site.get("function", ""), only))]
    if skipped:
        site = skipped[0]
        where = f" ({_short(site['file'])}:{site['line']})" if site.get("file") else ""
        event = next((e for e in m.break_events if e.get("skips_frame") and e.get("frame") == site.get("function")), None)
        kind = event["type"] if event else ""
        why = _SKIP_WHY.get(kind) or _SKIP_WHY.get(site.get("type", "")) or (
            "Dynamo gave up on the frame at this break instead of resuming after it. It does so for a break inside a loop, "
            "inside a `with` block of most context managers or inside a `try` block (lesson sections 2.5.5.1 to 2.5.5.3); "
            "where the break is in none of those, it is one Dynamo cannot resume from where it happens (the break below "
            "says which): remove that break")
        return CheckResult.outcome(spec, False, f"Dynamo skipped {_frame_name(site.get('function', '?'))}{where} and ran it "
                                   f"eagerly, without any error: {why}. The break: \"{site.get('type', '')}\". "
                                   f"{len(skipped)} frame(s) skipped in all. {_lesson(spec, ev.exercise)}")
    wanted = list(spec.params.get("ops", []))
    names = op_names(m.graph_targets)
    missing = [op for op in wanted if op not in names]
    if missing:
        return CheckResult.outcome(spec, False, f"No graph holds {', '.join(missing)} ({m.graphs} graph(s) compiled): the heavy work "
                                   f"ran in plain Python, outside every graph. {_lesson(spec, ev.exercise)}")
    held = f"; the graphs hold {', '.join(wanted)}" if wanted else ""
    scope = f" among {', '.join(f'`{name}`' for name in only)}" if only else " of your code"
    return CheckResult.outcome(spec, True, f"No frame{scope} was skipped{held}.")


# -- probe_variant ----------------------------------------------------------------------------------

PROBE_FACTS = Record({}, {"not_run": Bool(), "helper_missing": Bool(), "first_line": Int(0, 10**7), "sites": Int(0, 10**6),
                          "measure_failed": Text(2000),
                          "runs": ListOf(Record({"line": Maybe(Int()), "called_from": Maybe(Int()), "placed": Bool(),
                                                 "graphs": Int(0, 10**7), "error": Maybe(
                              Record({}, {"kind": Text(40), "gb_type": Text(2000), "message": Text(20_000), "file": Text(4000),
                                          "line": Maybe(Int()), "function": Text(400)}))}), 64)})


def helper_lines(source: str, dotted: str) -> tuple[int, int] | None:
    """First and last line of the file's function ``dotted`` ("hot", "Block.forward"), from the text itself."""
    try:
        scope = syntax.parse(source).body
    except (SyntaxError, ValueError, RecursionError):
        return None
    node = None
    for part in dotted.split("."):
        # The last definition of the name: the one Python binds (a notebook's answer cell may show
        # the code it replaces above it).
        node = next((n for n in reversed(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        scope = node.body
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return start, node.end_lineno or node.lineno


@decides("probe_variant", facts=PROBE_FACTS)
def check_probe_variant(spec, ev: Evidence) -> CheckResult:
    helper = spec.params["helper"]
    expect = spec.params.get("expect_type") or "Call to `torch._dynamo.graph_break()`"
    lesson = _lesson(spec, ev.exercise)
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if ev.measurement.error or ev.facts.get("not_run"):
        return _not_measured(spec, ev)
    span = helper_lines(ev.source, helper)
    if ev.facts.get("helper_missing") or span is None:
        return CheckResult.outcome(spec, False, f"Your file must keep the function `{helper}` and call it: the grader probes it. "
                                   f"`python -m autograder reset {ev.exercise.id}` restores the starting file.")
    runs = ev.facts.get("runs") or []
    if not runs:
        return CheckResult.outcome(spec, False, f"Dynamo never traced a call inside `{helper}`, so no break there could be tested: "
                                   f"`{helper}` must run compiled (not disabled, not skipped) as part of the graded code. {lesson}")
    name = helper.split(".")[-1]
    for run in runs:
        error = run.get("error") or {}
        at = f"line {run['line']}" if run.get("line") else "one of its calls"
        if run.get("called_from"):
            at += f" (only in the call made at line {run['called_from']})"
        inside = (error.get("function") == name and isinstance(error.get("line"), int) and span[0] <= error["line"] <= span[1])
        if error.get("kind") == "graph_break" and error.get("gb_type") == expect and inside:
            continue
        if error:
            return CheckResult.outcome(spec, False, f"The grader put a graph break in `{helper}` at {at}; your code failed, but not "
                                       f"with that break inside `{helper}`: {describe_failure(error)}. {lesson}")
        return CheckResult.outcome(spec, False, f"The grader put a graph break in `{helper}` at {at}, and your code ran without an "
                                   f"error ({run.get('graphs', 0)} graph(s)): nothing makes a break there an error, so a new break "
                                   f"in `{helper}` would go unnoticed. Keep error_on_graph_break(True) in effect around all of "
                                   f"`{helper}`'s work. {lesson}")
    return CheckResult.outcome(spec, True, f"The grader put a graph break at each call `{helper}` makes ({len(runs)} in all), one "
                               f"at a time, and each raised \"{expect}\": the strict setting covers `{helper}`.")

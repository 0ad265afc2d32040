"""Check kinds for chapter 2, part 2 (working with fullgraph=False, sections 2.5-2.5.5.6).

With ``fullgraph=False`` "passing" is not "one graph". It is: exactly the breaks the exercise
allows and no others, no frame silently skipped, the heavy work inside graphs, and a strict
setting (``error_on_graph_break(True)``) really in place where the task asks for one. Like every
check, these read what ``probe.measure`` recorded and never touch ``torch._dynamo`` themselves:

- ``breaks_allowed``: every break Dynamo handled (``Measurement.break_events``, recorded where
  Dynamo reports it, so breaks with no graph before them count too) is of an allowed *type*
  (Dynamo's ``gb_type``, never message text), optionally only in a named function
  (``"TYPE @ function"``); ``required`` types must still be there (a third-party break the
  learner may not delete);
- ``skipped_frames``: no frame of the learner's code was skipped (Dynamo gave up on it and ran it
  eagerly, which raises nothing under fullgraph=False), or none of ``functions`` when given (a
  small helper may be skipped by design, 2.5.5.6), and each of ``ops`` is in a graph: the heavy
  work really was compiled;
- ``probe_variant``: the grader swaps a hidden variant of a helper (the master's function
  ``variant``, the same helper with one more graph break) into the learner's module, measures
  again, and expects the break to raise. That proves a guard (``error_on_graph_break(True)``) is in
  place around the helper, whatever form it takes (decorator, ``with`` block, a strict caller).
  The variant replaces the helper's *code*, so the learner's decorators and wrappers stay on it.
"""

from __future__ import annotations

import contextlib
import re
import types

from autograder.checks.core import Context, _lesson, _short, _where, describe_failure, register
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


def _not_measured(spec, ctx: Context) -> CheckResult:
    return CheckResult.outcome(spec, False, f"Not measured: {describe_failure(ctx.measurement.error)}. "
                               "The first failed check says why.")


# -- breaks_allowed ---------------------------------------------------------------------------------

@register("breaks_allowed")
def check_breaks_allowed(spec, ctx: Context) -> CheckResult:
    m, allowed = ctx.measurement, list(spec.params.get("allowed", []))
    if m.error and m.error["kind"] == "graph_break":
        return CheckResult.outcome(spec, False, f"{describe_failure(m.error)}. Under fullgraph=False a break is an error only where "
                                   "error_on_graph_break(True) (or fullgraph=True) is in effect: this break must be "
                                   f"tolerated, or removed. {_lesson(spec, ctx.exercise)}")
    if m.error:
        return _not_measured(spec, ctx)
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
                                   f"{', '.join(sections)} explain these breaks.) {_lesson(spec, ctx.exercise)}")
    if missing:
        return CheckResult.outcome(spec, False, f"The break \"{missing[0]}\" is gone, and this task keeps it: it is in code the task says "
                                   f"you may not change, so tolerate it instead of removing it. {_lesson(spec, ctx.exercise)}")
    if not events:
        return CheckResult.outcome(spec, True, "No graph break at all.")
    kinds = sorted({event["type"] for event in events})
    return CheckResult.outcome(spec, True, f"{len(events)} distinct break(s), each of an allowed type: {', '.join(kinds)}.")


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


@register("skipped_frames")
def check_skipped_frames(spec, ctx: Context) -> CheckResult:
    m = ctx.measurement
    if m.error:
        return _not_measured(spec, ctx)
    only = list(spec.params.get("functions", []))
    skipped = [site for site in m.skipped_sites if site.get("user") and (not only or _frame_of(site.get("function", ""), only))]
    if skipped:
        site = skipped[0]
        where = f" ({_short(site['file'])}:{site['line']})" if site.get("file") else ""
        event = next((e for e in m.break_events if e.get("skips_frame") and e.get("frame") == site.get("function")), None)
        kind = event["type"] if event else ""
        why = _SKIP_WHY.get(kind) or _SKIP_WHY.get(site.get("type", "")) or (
            "Dynamo cannot resume after a break inside a loop, inside a `with` block of most context managers, or inside a "
            "`try` block (lesson sections 2.5.5.1 to 2.5.5.3)")
        return CheckResult.outcome(spec, False, f"Dynamo skipped {_frame_name(site.get('function', '?'))}{where} and ran it "
                                   f"eagerly, without any error: {why}. The break: \"{site.get('type', '')}\". "
                                   f"{len(skipped)} frame(s) skipped in all. {_lesson(spec, ctx.exercise)}")
    wanted = list(spec.params.get("ops", []))
    names = op_names(m.graph_targets)
    missing = [op for op in wanted if op not in names]
    if missing:
        return CheckResult.outcome(spec, False, f"No graph holds {', '.join(missing)} ({m.graphs} graph(s) compiled): the heavy work "
                                   f"ran in plain Python, outside every graph. {_lesson(spec, ctx.exercise)}")
    held = f"; the graphs hold {', '.join(wanted)}" if wanted else ""
    scope = f" among {', '.join(f'`{name}`' for name in only)}" if only else " of your code"
    return CheckResult.outcome(spec, True, f"No frame{scope} was skipped{held}.")


# -- probe_variant ----------------------------------------------------------------------------------

def _resolve(module, dotted: str):
    value = module
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def _functions_with_code(root, code, depth: int = 0, seen=None) -> list[types.FunctionType]:
    """The plain functions reachable from ``root`` (through wrappers, closures, bound methods) whose
    code has the same name and file as ``code``: the helper under whatever the learner wrapped it in."""
    seen = set() if seen is None else seen
    if id(root) in seen or depth > 6:
        return []
    seen.add(id(root))
    found = []
    if isinstance(root, types.FunctionType):
        if root.__code__.co_name == code.co_name and root.__code__.co_filename == code.co_filename:
            found.append(root)
        for cell in root.__closure__ or ():
            with contextlib.suppress(ValueError):
                found += _functions_with_code(cell.cell_contents, code, depth + 1, seen)
    for attribute in ("__wrapped__", "__func__", "_torchdynamo_orig_callable", "fn", "func"):
        try:
            inner = getattr(root, attribute, None) if not isinstance(root, type) else None
        except Exception:  # noqa: BLE001 - a property of the learner's object; nothing to follow there
            inner = None
        if inner is not None and callable(inner):
            found += _functions_with_code(inner, code, depth + 1, seen)
    return found


def _original_code(submission, dotted: str, filename: str):
    """(the code object of the helper as the learner's file defines it, the module attribute holding it)."""
    target = _resolve(submission, dotted)
    stub = types.SimpleNamespace(co_name=dotted.split(".")[-1], co_filename=filename)
    functions = _functions_with_code(target, stub)
    if not functions:
        raise LookupError(dotted)
    return functions[0].__code__, target


@contextlib.contextmanager
def substituted(submission, dotted: str, variant, filename: str):
    """Give the learner's helper ``dotted`` the code of ``variant`` while the block runs."""
    code, target = _original_code(submission, dotted, filename)
    functions = _functions_with_code(target, code)
    for value in vars(submission).values():  # the same helper reached from elsewhere (a class, a wrapper)
        if value is not target:
            functions += [f for f in _functions_with_code(value, code) if f.__code__ is code and f not in functions]
    functions = [f for f in functions if f.__code__ is code]
    new_code = variant.__code__
    if not functions:
        raise LookupError(dotted)
    for function in functions:
        if len(function.__code__.co_freevars) != len(new_code.co_freevars):
            raise TypeError(f"{dotted} closes over local variables; the grader's variant cannot replace it")
    for function in functions:
        function.__code__ = new_code
    try:
        yield len(functions)
    finally:
        for function in functions:
            function.__code__ = code


@register("probe_variant")
def check_probe_variant(spec, ctx: Context) -> CheckResult:
    from autograder.sandbox import probe

    if ctx.measurement.error:
        return _not_measured(spec, ctx)
    helper, variant = spec.params["helper"], getattr(ctx.master, spec.params["variant"])
    expect = spec.params.get("expect_type")
    try:
        with substituted(ctx.submission, helper, variant, ctx.submission_file):
            probed = probe.measure(ctx.entry, ctx.calls[:1], ctx.options, prefer_file=ctx.submission_file, driver=ctx.driver)
    except (AttributeError, LookupError):
        return CheckResult.outcome(spec, False, f"Your file must keep the function `{helper}` and call it: the grader probes it. "
                                   f"`python -m autograder reset {ctx.exercise.id}` restores the starting file.")
    except TypeError as exc:
        return CheckResult.outcome(spec, False, f"{exc}. Keep `{helper}` a plain function of your file.")
    error = probed.error
    if error and error["kind"] == "graph_break" and (not expect or error.get("gb_type") == expect):
        return CheckResult.outcome(spec, True, f"The grader gave `{helper}` one more graph break, and your code raised "
                                   f"\"{error.get('gb_type') or error['message'].splitlines()[0]}\": the strict setting is in place.")
    if error:
        return CheckResult.outcome(spec, False, f"The grader gave `{helper}` one more graph break; your code failed, but not at that "
                                   f"break: {describe_failure(error)}. {_lesson(spec, ctx.exercise)}")
    return CheckResult.outcome(spec, False, f"The grader gave `{helper}` one more graph break (a hidden variant of it), and your code "
                               f"ran without an error ({probed.graphs} graph(s)): nothing makes a break in `{helper}` an error, so "
                               f"a new break there would go unnoticed. Keep error_on_graph_break(True) in effect around it. "
                               f"{_lesson(spec, ctx.exercise)}")

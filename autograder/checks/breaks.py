"""Check kinds for chapter 2 (graph breaks): escape hatches, captured output, dodges, custom operators.

Like every check, these only read what ``probe.measure`` recorded (never ``torch._dynamo`` itself):

- ``escape_hatch``: the helper's work really is in the graph, held by ``nonstrict_trace`` or by a
  custom operator, not run outside it (a disabled function) nor smuggled in with ``allow_in_graph``;
- ``output``: each compiled call prints (or logs) what the reference prints when run eagerly;
- ``no_dodge``: none of the known ways to make a break *look* fixed is used, with the reason why
  each is not a fix;
- ``opcheck``: ``torch.library.opcheck`` passes on the learner's custom operator (schema, fake
  kernel, autograd registration, AOT tracing).
"""

from __future__ import annotations

import ast

import torch

from autograder.checks.core import Context, _lesson, register
from autograder.format.result import CheckResult

# Taken when the grader starts, before any submission runs: replacing torch.library.opcheck cannot pass.
_OPCHECK = torch.library.opcheck

# -- escape_hatch ---------------------------------------------------------------------------------

_ALLOW_IN_GRAPH_WHY = ("That is torch.compiler.allow_in_graph: Dynamo puts the function into the graph as one opaque call and "
                       "checks nothing about it. A real backend traces it once with fake tensors and never runs the Python "
                       "again, so a print or a global it touches acts at compile time only")


def _nonstrict_nodes(targets: list[str]) -> int:
    return sum("flat_apply" in target for target in targets)


def _has_op(targets: list[str], op: str) -> bool:
    """``op`` is "aten.sin" or "course.interp": match the graph's "aten.sin.default" and the like."""
    return any(target == op or target.startswith(op + ".") for target in targets)


@register("escape_hatch")
def check_escape_hatch(spec, ctx: Context) -> CheckResult:
    m, via = ctx.measurement, spec.params.get("via", "any")
    if m.error:
        return CheckResult.outcome(spec, False, "Not measured: no call compiled and ran cleanly (the first failed check says why).")
    if m.user_calls:
        names = ", ".join(sorted(set(m.user_calls)))
        return CheckResult.outcome(spec, False, f"The graph calls your function(s) {names} as single opaque nodes. {_ALLOW_IN_GRAPH_WHY}. "
                                   f"Use {'torch._dynamo.nonstrict_trace' if via != 'custom_op' else 'torch.library.custom_op'} instead. "
                                   f"{_lesson(spec, ctx.exercise)}")
    nonstrict, custom = _nonstrict_nodes(m.graph_targets), sorted(set(m.custom_ops))
    holders = ([f"{nonstrict} nonstrict_trace call(s)"] if nonstrict else []) + ([f"the custom op(s) {', '.join(custom)}"] if custom else [])
    if via == "nonstrict_trace" and not nonstrict:
        return CheckResult.outcome(spec, False, "The Dynamo graph has no nonstrict_trace call (a flat_apply node): the helper was "
                                   f"not put behind torch._dynamo.nonstrict_trace. {_lesson(spec, ctx.exercise)}")
    if via == "custom_op" and not custom:
        return CheckResult.outcome(spec, False, "The Dynamo graph calls no custom operator: the helper must run as an operator "
                                   f"registered with torch.library.custom_op. {_lesson(spec, ctx.exercise)}")
    if via == "any" and not holders:
        return CheckResult.outcome(spec, False, "The graph holds no escape hatch (no nonstrict_trace call, no custom op). "
                                   f"{_lesson(spec, ctx.exercise)}")
    wanted = list(spec.params.get("ops", []))
    missing = [op for op in wanted if not _has_op(m.aot_targets, op)]
    if missing:
        return CheckResult.outcome(spec, False, f"The AOT graph lacks {', '.join(missing)}: the helper's work ran outside the compiled "
                                   "graph (a disabled function, or code that is not traced) instead of being traced through. "
                                   f"{_lesson(spec, ctx.exercise)}")
    shown = f"; the AOT graph holds {', '.join(wanted)}" if wanted else ""
    return CheckResult.outcome(spec, True, f"The helper runs inside the graph through {' and '.join(holders)}{shown}.")


# -- output ---------------------------------------------------------------------------------------

def _lines(seen: dict, stream: str) -> list[str]:
    if stream == "logging":
        return list(seen.get("logs", []))
    return seen.get("stdout", "").splitlines()


@register("output")
def check_output(spec, ctx: Context) -> CheckResult:
    stream, expect = spec.params.get("stream", "stdout"), spec.params.get("expect", "reference")
    what = "printed" if stream == "stdout" else "logged"
    got = ctx.measurement.call_output
    if len(got) < len(ctx.calls) and ctx.measurement.error:
        return CheckResult.outcome(spec, False, f"Call {len(got)} of {len(ctx.calls)} failed, so the output cannot be compared "
                                   "(the first failed check says why).")
    for number, (seen, reference) in enumerate(zip(got, ctx.expected_output), start=1):
        actual = _lines(seen, stream)
        wanted = [] if expect == "silent" else _lines(reference, stream)
        if actual == wanted:
            continue
        message = f"Call {number} of {len(ctx.calls)} {what} {actual!r}; the reference {what} {wanted!r} when run eagerly."
        if wanted and not actual:
            message += (" The message is gone: a call behind `if not torch.compiler.is_compiling()`, one listed in "
                        "ignore_logging_functions, or a deleted one never runs in compiled code, and this task keeps the message.")
        elif len(actual) > len(wanted):
            message += (" It ran more often than in eager: code that runs while Dynamo traces (allow_in_graph) prints at compile"
                        " time too.")
        elif wanted and actual:
            message += (" A reordered print runs after the graph, so it shows values as they are at the end of the call"
                        " (after any in-place change), not as they were at the print.")
        return CheckResult.outcome(spec, False, f"{message} {_lesson(spec, ctx.exercise)}")
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
    tree = ast.parse(source)
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


def find_dodges(ctx: Context, forbid) -> dict[str, str]:
    """{dodge: what was found} for each forbidden dodge the submission uses."""
    m, found = ctx.measurement, {}
    try:
        used = _names_used(open(ctx.submission_file, encoding="utf-8").read()) if ctx.submission_file else set()
    except (OSError, SyntaxError):
        used = set()
    if "disable" in forbid:
        # Only names the file itself uses: Dynamo adds its own disabled helpers (__compiled_fn_*) to the module.
        disabled = sorted(name for name, value in vars(ctx.submission).items()
                          if name in used and not name.startswith("__") and getattr(value, "_torchdynamo_disable", False))
        reasons = [b["reason"] for b in m.break_sites] + ([m.error["message"]] if m.error else [])
        if disabled:
            found["disable"] = f"{', '.join(disabled)} is wrapped by torch.compiler.disable"
        elif any("disable()" in reason or "disabled function" in reason for reason in reasons):
            found["disable"] = "the graph stopped at a call of a disable()d function"
        elif "disable" in used:
            found["disable"] = "your file uses torch.compiler.disable"
    if "allow_in_graph" in forbid and (m.user_calls or "allow_in_graph" in used):
        found["allow_in_graph"] = (f"the graph calls {', '.join(sorted(set(m.user_calls)))} as opaque nodes" if m.user_calls
                                   else "your file uses torch.compiler.allow_in_graph")
    if "is_compiling" in forbid and used & {"is_compiling", "is_dynamo_compiling"}:
        found["is_compiling"] = "your code asks torch.compiler.is_compiling()"
    if "set_stance" in forbid and "set_stance" in used:
        found["set_stance"] = "your code calls torch.compiler.set_stance"
    if "eager_fallback" in forbid and not m.error and m.compiled_calls < m.calls:
        found["eager_fallback"] = f"only {m.compiled_calls} of {m.calls} calls ran compiled code"
    return found


@register("no_dodge")
def check_no_dodge(spec, ctx: Context) -> CheckResult:
    from autograder.format.exercise import DODGES

    forbid = spec.params.get("forbid") or sorted(DODGES)
    found = find_dodges(ctx, forbid)
    if not found:
        return CheckResult.outcome(spec, True, f"No dodge found (looked for: {', '.join(forbid)}).")
    parts = [f"{what}: {_DODGE_WHY[dodge]}" for dodge, what in found.items()]
    return CheckResult.outcome(spec, False, "Not a fix: " + ". Also, ".join(parts) + ". " + _lesson(spec, ctx.exercise))


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


@register("opcheck")
def check_opcheck(spec, ctx: Context) -> CheckResult:
    qualname = spec.params["op"]
    namespace, name = qualname.split("::", 1)
    packet = getattr(getattr(torch.ops, namespace), name, None) if hasattr(torch.ops, namespace) else None
    try:
        overload = packet.default if packet is not None else None
    except AttributeError:
        overload = None
    if overload is None:
        return CheckResult.outcome(spec, False, f"No operator named {qualname} is registered. Register it with "
                                   f"@torch.library.custom_op(\"{qualname}\", mutates_args=...). {_lesson(spec, ctx.exercise)}")
    samples = getattr(ctx.master, spec.params.get("samples", "op_samples"))(torch.Generator().manual_seed(0))
    for number, args in enumerate(samples, start=1):
        try:
            _OPCHECK(overload, args)
        except Exception as exc:  # OpCheckError, or whatever the learner's kernel raised
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            test = next((t for t in _OPCHECK_WHY if t in text), None)
            why = f" In short: {_OPCHECK_WHY[test]}." if test else ""
            return CheckResult.outcome(spec, False, f"torch.library.opcheck on {qualname} failed for sample {number} of {len(samples)}: "
                                       f"{text[:400]}.{why} {_lesson(spec, ctx.exercise)}")
    return CheckResult.outcome(spec, True, f"torch.library.opcheck passed on {qualname} for {len(samples)} sample input(s) "
                               "(schema, fake kernel, autograd registration, AOT tracing).")

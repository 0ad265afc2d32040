"""Decisions of chapters 3 and 4: non-strict tracing, and the cost of recompiling.

- ``nonstrict``: the grader traced the learner's helper itself, non-strictly (``make_fx``), the
  first time the learner's pipeline called it, and replayed that one graph on every later call,
  while it changed what a pure function would take as input (a global the master's ``hook``
  rebinds, a Python scalar, a shape: hidden values from ``calls(gen)``). Each call's output, stdout
  and arguments afterwards (``observe``) must match the master's pipeline run eagerly, which is
  what the program means; and the output must come from the replayed graph: changing what the
  graph returns must change it. An impure helper gives silently different answers.
- ``ops``: a budget on the operations traced over the whole schedule (the sum over every graph,
  recompiles included), with a floor on the largest graph so that the expensive part stays compiled.

The runs are in ``autograder.sandbox.kinds.tracing``; these decide from their plain results.
"""

from __future__ import annotations

from autograder.checks.core import _lesson, compare, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Int, ListOf, Maybe, Plain, Record, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult

OBSERVE = ("output", "stdout", "arguments")
MODES = ("fake", "real", "symbolic")

NONSTRICT_FACTS = Record({"helper_missing": Bool()}, {
    "outputs": ListOf(Plain()), "stdout": ListOf(Text(40_000)), "arguments": ListOf(Plain()), "error": Maybe(Text(2000)),
    "error_call": Int(0, 10**6), "graph": Bool(), "graph_calls": ListOf(Int(0, 10**9)), "ops": ListOf(Text(400), 100_000),
    "parameters": ListOf(Text(200), 50), "measure_failed": Text(2000),
    "graph_inputs": ListOf(ListOf(Plain(), 64)), "global_constants": ListOf(Text(200), 20),
    "perturbed": Record({"outputs": ListOf(Plain()), "error": Maybe(Text(2000)), "error_call": Int(0, 10**6)})})


def measures_itself(exercise) -> bool:
    """True when every check is ``nonstrict``: Dynamo's view of the pipeline is not graded, so the learner's
    process skips ``probe.measure`` and records what the non-strict trace did instead."""
    return bool(exercise.checks) and all(spec.kind == "nonstrict" for spec in exercise.checks)


def _shown(text: str) -> str:
    return repr(text) if text else "nothing"


def _what_changes(doc: str) -> str:
    line = (doc or "Changes the inputs").rstrip(".")
    return line[:1].lower() + line[1:]


def _argument_problem(names: list, actual, expected, rtol: float, atol: float) -> str | None:
    """How the arguments after a call differ from what eager Python leaves behind, naming the parameter."""
    for index, (mine, theirs) in enumerate(zip(actual, expected)):
        name = f"`{names[index]}`" if index < len(names) else f"number {index + 1}"
        if isinstance(theirs, list) and isinstance(mine, list) and len(mine) != len(theirs):
            return f"the list {name} holds {len(mine)} item(s), where eager Python leaves {len(theirs)}"
        problem = compare(mine, theirs, rtol, atol, path=f"argument {name}")
        if problem:
            return f"{problem} (compared with what eager Python leaves behind)"
    return None


@decides("nonstrict", facts=NONSTRICT_FACTS)
def check_nonstrict(spec, ev: Evidence) -> CheckResult:
    p = spec.params
    helper, mode = p["helper"], p.get("mode", "fake")
    observe = list(p.get("observe", ["output"]))
    rtol, atol = p.get("rtol", 1e-5), p.get("atol", 1e-6)
    lesson = _lesson(spec, ev.exercise)
    expected, run = ev.reference, ev.facts
    entry_name = ev.exercise.entry
    calls = ev.calls
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if run.get("helper_missing"):
        return CheckResult.outcome(spec, False, f"Your file must keep a module-level function `{helper}`: the grader traces it "
                                   f"non-strictly wherever `{entry_name}` calls it. {lesson}")
    how = f"The grader traced `{helper}` once with make_fx(tracing_mode={mode!r}) and replayed that graph on every later call"
    if p.get("hook"):
        how += f"; before each call it {_what_changes(expected.get('hook_doc', ''))}"
    if run.get("error"):
        return CheckResult.outcome(spec, False, f"Call {run.get('error_call')} of {calls} did not finish: {run['error']}. {how}. {lesson}")
    graph_calls = list(run.get("graph_calls") or [])
    missing = [number for number, runs in enumerate(graph_calls, start=1) if runs == 0]
    if not run.get("graph") or missing or len(graph_calls) < calls:
        where = "in no call" if not run.get("graph") else f"not in call(s) {', '.join(map(str, missing))}"
        return CheckResult.outcome(spec, False, f"`{entry_name}` called `{helper}` {where}. The grader traces `{helper}` and checks "
                                   f"what its graph computes, so `{entry_name}` must call it (by that name) on every call. {lesson}")
    ops = list(run.get("ops") or [])
    if not ops:
        return CheckResult.outcome(spec, False, f"The graph traced from `{helper}` holds no operations: `{entry_name}` does the work "
                                   f"outside it. Keep the computation inside `{helper}`. {lesson}")
    absent = [op for op in p.get("ops", []) if not any(op in target for target in ops)]
    if absent:
        return CheckResult.outcome(spec, False, f"The graph traced from `{helper}` has no {', '.join(absent)} (its ops: "
                                   f"{', '.join(ops) or 'none'}). Keep that work inside `{helper}`: moving it out of the traced "
                                   f"function is not what makes a function pure. {lesson}")
    if expected.get("error"):
        return CheckResult.outcome(spec, False, f"The grader's own eager run of the program failed ({expected['error']}): a fault of "
                                   "the exercise, not of your file.")
    for number in range(calls):
        label = f"Call {number + 1} of {calls}"
        if "output" in observe:
            problem = compare(run["outputs"][number], expected["outputs"][number], rtol, atol)
            if problem:
                return CheckResult.outcome(spec, False, f"{label}: {problem} (the reference is the program run eagerly). "
                                           f"{how}: a graph replays what tracing recorded, and whatever it took as a constant then (a global, a "
                                           f"Python number, a size, a position in a list) does not follow the program. {lesson}")
        if "stdout" in observe and run["stdout"][number] != expected["stdout"][number]:
            return CheckResult.outcome(spec, False, f"{label} printed {_shown(run['stdout'][number])}; run eagerly, the program prints "
                                       f"{_shown(expected['stdout'][number])}. {how}: Python code in a traced function runs once, while "
                                       f"tracing, never when the graph runs. {lesson}")
        if "arguments" in observe:
            problem = _argument_problem(run.get("parameters") or [], run["arguments"][number], expected["arguments"][number], rtol, atol)
            if problem:
                return CheckResult.outcome(spec, False, f"{label}: after the call, {problem}. {how}: a graph has no side "
                                           f"effects on Python objects. {lesson}")
    moved = run.get("perturbed")
    if "output" in observe and moved is not None and moved.get("error") is None:
        unmoved = [number + 1 for number, (plain, changed) in enumerate(zip(run["outputs"], moved["outputs"]))
                   if compare(changed, plain, 1e-7, 1e-9) is None]
        if unmoved:
            return CheckResult.outcome(spec, False, f"When the grader changed what the graph traced from `{helper}` returns, the output "
                                       f"of call(s) {', '.join(map(str, unmoved))} stayed the same: it does not come from the replayed "
                                       f"graph. `{entry_name}` must return what `{helper}` computes, not compute it again outside. {lesson}")
    if p.get("pure") and run.get("global_constants"):
        names = ", ".join(f"`{name}`" for name in run["global_constants"])
        return CheckResult.outcome(spec, False, f"The graph traced from `{helper}` holds the module-level tensor {names} as a constant: "
                                   f"`{helper}` read it as a global, not through its arguments. make_fx keeps that very tensor "
                                   "object, so a change made to it in place shows through and a rebinding does not, and another "
                                   f"backend may copy its values when it compiles. Pass it in as an argument. {lesson}")
    if p.get("reaches"):
        problem = _reach_problem(run.get("graph_inputs") or [], expected.get("reaches") or [], rtol, atol)
        if problem is not None:
            number, value = problem
            what = _what_changes(expected.get("reaches_doc", ""))
            return CheckResult.outcome(spec, False, f"Call {number} of {calls}: none of the inputs that the graph traced from `{helper}` "
                                       f"reads carries {what} ({_brief(value)}). It reached `{helper}` only through other values, or "
                                       "as a constant fixed while tracing. What changes between calls must enter the traced function "
                                       f"as an argument its graph reads, a tensor. {lesson}")
    seen = {"output": "output", "stdout": "printed text", "arguments": "arguments afterwards"}
    agreed = f"; the program run eagerly agrees with every call's {' and '.join(seen[o] for o in observe)}" if observe else ""
    extra = "; it reads no global tensor" if p.get("pure") else ""
    extra += f"; every call's {_what_changes(expected.get('reaches_doc', '')).rstrip('.')} reached it as an input" if p.get("reaches") else ""
    return CheckResult.outcome(spec, True, f"`{helper}` was traced once ({len(ops)} ops) and its graph served all {calls} "
                               f"calls{agreed}{extra}.")


def _carries(value, wanted, rtol: float, atol: float) -> bool:
    """Whether a graph input's value carries ``wanted``: the same tensor values (in any shape that keeps
    them in order, such as ``t[None]`` or ``t.reshape(1, -1)``, or broadcast to a larger shape, such as
    ``t.expand_as(x)``), or, for a number (or a one-element tensor), a tensor holding that number in
    every element."""
    import torch

    if not isinstance(value, torch.Tensor) or value.is_complex() or value.numel() == 0:
        return False
    if isinstance(wanted, torch.Tensor) and wanted.numel() != 1:
        if value.numel() == wanted.numel():
            return bool(torch.allclose(value.double().reshape(-1), wanted.double().reshape(-1), rtol=rtol, atol=atol))
        try:
            if torch.broadcast_shapes(value.shape, wanted.shape) != value.shape:
                return False
        except RuntimeError:
            return False
        return bool(torch.allclose(value.double(), wanted.double().expand(value.shape), rtol=rtol, atol=atol))
    number = float(wanted.double().item()) if isinstance(wanted, torch.Tensor) else wanted
    if type(number) not in (int, float):
        return False
    return bool(torch.allclose(value.double(), torch.full_like(value.double(), float(number)), rtol=rtol, atol=atol))


def _reach_problem(inputs: list, wanted: list, rtol: float, atol: float):
    """(call number, wanted value) of the first call whose graph inputs carry nothing of ``wanted``; None when every call's do."""
    for number, value in enumerate(wanted, start=1):
        given = inputs[number - 1] if number - 1 < len(inputs) else []
        if not any(_carries(item, value, rtol, atol) for item in given):
            return number, value
    return None


def _brief(value) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return f"{value.item():.4g}" if value.numel() == 1 else f"a tensor of shape {tuple(value.shape)}"
    return f"{value:.4g}" if isinstance(value, float) else repr(value)[:60]


@decides("ops")
def check_ops(spec, ev: Evidence) -> CheckResult:
    m, p = ev.measurement, spec.params
    total, per_graph = sum(m.ops_per_graph), list(m.ops_per_graph)
    shown = f"{total} ops traced over {m.graphs} graph(s) {per_graph}"
    if m.error:
        return CheckResult.outcome(spec, False, f"{shown} before a call failed; the first failed check above says why. {_lesson(spec, ev.exercise)}")
    problems = []
    if "max" in p and total > p["max"]:
        problems.append(f"at most {p['max']} allowed over the schedule")
    if "min_largest" in p and max(per_graph, default=0) < p["min_largest"]:
        problems.append(f"the largest graph should hold at least {p['min_largest']} ops (the expensive part must stay compiled)")
    if problems:
        extra = f" {m.recompiles} recompile(s) each traced again what their graph holds." if m.recompiles else ""
        return CheckResult.outcome(spec, False, f"{shown}; {'; '.join(problems)}.{extra} {_lesson(spec, ev.exercise)}")
    limits = [f"at most {p['max']} in total"] if "max" in p else []
    limits += [f"at least {p['min_largest']} in the largest graph"] if "min_largest" in p else []
    return CheckResult.outcome(spec, True, f"{shown}; {' and '.join(limits) or 'no limit set'}.")

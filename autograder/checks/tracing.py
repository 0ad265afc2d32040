"""Check kinds for chapters 3 and 4: non-strict tracing, and the cost of recompiling.

- ``nonstrict``: the grader traces the learner's helper itself, non-strictly (``make_fx``), the
  first time the learner's pipeline calls it, and replays that one graph on every later call,
  while the grader changes what a pure function would take as input (a global the master's
  ``hook`` rebinds, a Python scalar, a shape: hidden values from ``calls(gen)``). Each call's
  output, stdout and arguments afterwards (``observe``) must match the master's pipeline run
  eagerly, which is what the program means. An impure helper gives silently different answers.
- ``ops``: a budget on the operations traced over the whole schedule (the sum over every graph,
  recompiles included), with a floor on the largest graph so that the expensive part stays
  compiled.

Neither touches ``torch._dynamo``: non-strict tracing lives in ``torch.fx``, and ``ops`` reads
``probe.measure``'s counts. The reference runs (``prepare_references``) happen in the grading
child before the submission is imported, like every other reference.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
from dataclasses import dataclass, field

import torch
from torch.fx.experimental.proxy_tensor import make_fx as _make_fx  # bound before any submission runs

from autograder.checks.core import Context, _lesson, compare, register
from autograder.sandbox.probe import Measurement, _detach
from autograder.format.result import CheckResult

OBSERVE = ("output", "stdout", "arguments")
MODES = ("fake", "real", "symbolic")


@dataclass
class PipelineRun:
    """What one run of a pipeline over the schedule showed, call by call."""

    outputs: list = field(default_factory=list)
    stdout: list = field(default_factory=list)
    arguments: list = field(default_factory=list)  # each call's arguments as they were after the call
    error: str | None = None  # why the run stopped early
    error_call: int = 0
    graph: torch.fx.GraphModule | None = None
    graph_calls: list = field(default_factory=list)  # per call: how many times the traced graph ran


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:400]


class _TraceOnce:
    """Stands in for the helper: traces it non-strictly on the first call, replays the graph after."""

    def __init__(self, function, mode: str):
        self.function, self.mode = function, mode
        self.graph = None
        self.runs = 0
        self.__name__ = getattr(function, "__name__", "helper")

    def __call__(self, *args, **kwargs):
        bound = inspect.signature(self.function).bind(*args, **kwargs)
        bound.apply_defaults()
        positional, names = list(bound.args), list(bound.kwargs)
        values = positional + [bound.kwargs[name] for name in names]
        if self.graph is None:
            function, count = self.function, len(positional)

            def flat(*flat_values):
                return function(*flat_values[:count], **dict(zip(names, flat_values[count:])))

            try:
                self.graph = _make_fx(flat, tracing_mode=self.mode, _allow_non_fake_inputs=True)(*values)
            except Exception as exc:
                raise _TraceFailed(exc) from exc
        self.runs += 1
        return self.graph(*values)


class _TraceFailed(Exception):
    def __init__(self, cause: BaseException):
        super().__init__(_first_line(cause))
        self.cause = cause


def run_pipeline(module, entry, calls: list, helper: str | None = None, hook=None, mode: str = "fake") -> PipelineRun:
    """Call ``entry`` on every argument tuple of ``calls``, eagerly, calling ``hook(module, number)`` first.

    With ``helper``, the module-level function of that name is traced once and replayed (``_TraceOnce``)
    for the whole run and put back afterwards. The schedule is deep-copied as a whole, so an object
    that several calls share (a queue, a list of pending updates) stays shared, as in the learner's program.
    """
    run = PipelineRun()
    original = getattr(module, helper) if helper else None
    stand_in = _TraceOnce(original, mode) if helper else None
    if helper:
        setattr(module, helper, stand_in)
    try:
        for number, args in enumerate(copy.deepcopy(calls)):
            if hook is not None:
                hook(module, number)
            before = stand_in.runs if stand_in else 0
            buffer = io.StringIO()
            try:
                with contextlib.redirect_stdout(buffer):
                    output = entry(*args)
            except _TraceFailed as exc:
                run.error, run.error_call = f"tracing `{helper}` failed: {exc}", number + 1
                run.stdout.append(buffer.getvalue())
                break
            except Exception as exc:  # the learner's pipeline, or a graph that cannot be replayed
                run.error, run.error_call = _first_line(exc), number + 1
                run.stdout.append(buffer.getvalue())
                break
            run.outputs.append(_detach(output))
            run.stdout.append(buffer.getvalue())
            run.arguments.append(_detach(args))
            run.graph_calls.append((stand_in.runs - before) if stand_in else 0)
    finally:
        if helper:
            setattr(module, helper, original)
    run.graph = stand_in.graph if stand_in else None
    return run


def measures_itself(exercise) -> bool:
    """True when every check is ``nonstrict``: Dynamo's view of the pipeline is not graded, so the grading
    child skips ``probe.measure`` and the checks record what the non-strict trace did instead."""
    return bool(exercise.checks) and all(spec.kind == "nonstrict" for spec in exercise.checks)


def no_dynamo_measurement(entry, calls, options, **_) -> Measurement:
    """Stands in for ``probe.measure`` when ``measures_itself``: an empty Measurement the checks fill."""
    return Measurement()


def _record(measurement: Measurement, run: PipelineRun, calls: int) -> None:
    """Show the non-strict trace in the grade's measurements: one graph, and the calls its replay served."""
    measurement.calls = calls
    measurement.graphs = 1 if run.graph is not None else 0
    measurement.ops_per_graph = [len(_ops_in(run.graph))] if run.graph is not None else []
    measurement.compiled_calls = sum(1 for runs in run.graph_calls if runs)


def _reference_entry(exercise, master):
    return getattr(master, "reference", None) or getattr(master, exercise.entry)


def prepare_references(exercise, master, calls: list) -> dict:
    """For each ``nonstrict`` check: the master's pipeline run eagerly (no tracing), keyed by check name.

    Called by the grading child before the submission is imported.
    """
    prepared = {}
    for spec in exercise.checks:
        if spec.kind == "nonstrict":
            hook = getattr(master, spec.params["hook"]) if spec.params.get("hook") else None
            prepared[spec.name] = run_pipeline(master, _reference_entry(exercise, master), calls, hook=hook)
    return prepared


def _ops_in(graph) -> list[str]:
    return [str(node.target) for node in graph.graph.nodes if node.op == "call_function"]


def _shown(text: str) -> str:
    return repr(text) if text else "nothing"


def _what_changes(hook) -> str:
    doc = (getattr(hook, "__doc__", None) or "").strip().splitlines()
    line = doc[0].rstrip(".") if doc else "Changes the inputs"
    return line[:1].lower() + line[1:]


def _argument_problem(entry, actual: tuple, expected: tuple, rtol: float, atol: float) -> str | None:
    """How the arguments after a call differ from what eager Python leaves behind, naming the parameter."""
    try:
        names = list(inspect.signature(entry).parameters)
    except (TypeError, ValueError):
        names = []
    for index, (mine, theirs) in enumerate(zip(actual, expected)):
        name = f"`{names[index]}`" if index < len(names) else f"number {index + 1}"
        if isinstance(theirs, list) and isinstance(mine, list) and len(mine) != len(theirs):
            return f"the list {name} holds {len(mine)} item(s), where eager Python leaves {len(theirs)}"
        problem = compare(mine, theirs, rtol, atol, path=f"argument {name}")
        if problem:
            return f"{problem} (compared with what eager Python leaves behind)"
    return None


@register("nonstrict")
def check_nonstrict(spec, ctx: Context) -> CheckResult:
    p = spec.params
    helper, mode = p["helper"], p.get("mode", "fake")
    observe = list(p.get("observe", ["output"]))
    rtol, atol = p.get("rtol", 1e-5), p.get("atol", 1e-6)
    hook = getattr(ctx.master, p["hook"]) if p.get("hook") else None
    lesson = _lesson(spec, ctx.exercise)
    expected: PipelineRun = ctx.prepared[spec.name]
    entry_name = ctx.exercise.entry
    if not callable(getattr(ctx.submission, helper, None)):
        return CheckResult.outcome(spec, False, f"Your file must keep a module-level function `{helper}`: the grader traces it "
                                   f"non-strictly wherever `{entry_name}` calls it. {lesson}")
    run = run_pipeline(ctx.submission, ctx.entry, ctx.calls, helper=helper, hook=hook, mode=mode)
    if measures_itself(ctx.exercise):
        _record(ctx.measurement, run, len(ctx.calls))
    how = f"The grader traced `{helper}` once with make_fx(tracing_mode={mode!r}) and replayed that graph on every later call"
    if hook is not None:
        how += f"; before each call it {_what_changes(hook)}"
    if run.error:
        return CheckResult.outcome(spec, False, f"Call {run.error_call} of {len(ctx.calls)} did not finish: {run.error}. {how}. {lesson}")
    missing = [number for number, runs in enumerate(run.graph_calls, start=1) if runs == 0]
    if run.graph is None or missing:
        where = "in no call" if run.graph is None else f"not in call(s) {', '.join(map(str, missing))}"
        return CheckResult.outcome(spec, False, f"`{entry_name}` called `{helper}` {where}. The grader traces `{helper}` and checks "
                                   f"what its graph computes, so `{entry_name}` must call it (by that name) on every call. {lesson}")
    ops = _ops_in(run.graph)
    if not ops:
        return CheckResult.outcome(spec, False, f"The graph traced from `{helper}` holds no operations: `{entry_name}` does the work "
                                   f"outside it. Keep the computation inside `{helper}`. {lesson}")
    absent = [op for op in p.get("ops", []) if not any(op in target for target in ops)]
    if absent:
        return CheckResult.outcome(spec, False, f"The graph traced from `{helper}` has no {', '.join(absent)} (its ops: "
                                   f"{', '.join(ops) or 'none'}). Keep that work inside `{helper}`: moving it out of the traced "
                                   f"function is not what makes a function pure. {lesson}")
    for number in range(len(ctx.calls)):
        label = f"Call {number + 1} of {len(ctx.calls)}"
        if "output" in observe:
            problem = compare(run.outputs[number], expected.outputs[number], rtol, atol)
            if problem:
                return CheckResult.outcome(spec, False, f"{label}: {problem} (the reference is the program run eagerly). "
                                           f"{how}: a graph replays what tracing recorded, and whatever it took as a constant then (a global, a "
                                           f"Python number, a size, a position in a list) does not follow the program. {lesson}")
        if "stdout" in observe and run.stdout[number] != expected.stdout[number]:
            return CheckResult.outcome(spec, False, f"{label} printed {_shown(run.stdout[number])}; run eagerly, the program prints "
                                       f"{_shown(expected.stdout[number])}. {how}: Python code in a traced function runs once, while "
                                       f"tracing, never when the graph runs. {lesson}")
        if "arguments" in observe:
            problem = _argument_problem(ctx.entry, run.arguments[number], expected.arguments[number], rtol, atol)
            if problem:
                return CheckResult.outcome(spec, False, f"{label}: after the call, {problem}. {how}: a graph has no side "
                                           f"effects on Python objects. {lesson}")
    seen = {"output": "output", "stdout": "printed text", "arguments": "arguments afterwards"}
    return CheckResult.outcome(spec, True, f"`{helper}` was traced once ({len(ops)} ops) and its graph served all {len(ctx.calls)} "
                               f"calls; the program run eagerly agrees with every call's {' and '.join(seen[o] for o in observe)}.")


@register("ops")
def check_ops(spec, ctx: Context) -> CheckResult:
    m, p = ctx.measurement, spec.params
    total, per_graph = sum(m.ops_per_graph), list(m.ops_per_graph)
    shown = f"{total} ops traced over {m.graphs} graph(s) {per_graph}"
    if m.error:
        return CheckResult.outcome(spec, False, f"{shown} before a call failed; the first failed check above says why. {_lesson(spec, ctx.exercise)}")
    problems = []
    if "max" in p and total > p["max"]:
        problems.append(f"at most {p['max']} allowed over the schedule")
    if "min_largest" in p and max(per_graph, default=0) < p["min_largest"]:
        problems.append(f"the largest graph should hold at least {p['min_largest']} ops (the expensive part must stay compiled)")
    if problems:
        extra = f" {m.recompiles} recompile(s) each traced again what their graph holds." if m.recompiles else ""
        return CheckResult.outcome(spec, False, f"{shown}; {'; '.join(problems)}.{extra} {_lesson(spec, ctx.exercise)}")
    limits = [f"at most {p['max']} in total"] if "max" in p else []
    limits += [f"at least {p['min_largest']} in the largest graph"] if "min_largest" in p else []
    return CheckResult.outcome(spec, True, f"{shown}; {' and '.join(limits) or 'no limit set'}.")

"""Each check kind: turn the grader's measurements into a verdict and a message for the learner.

Runs inside the grading child (it compares tensors), but never touches ``torch._dynamo``: the
numbers come from ``probe.measure``. A message says what was measured, what was expected, and
where the course teaches the fix.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from types import ModuleType

import torch

from autograder.format.exercise import COSTLY_KINDS, CheckSpec, Exercise
from autograder.sandbox.probe import Measurement
from autograder.format.result import CheckResult, short_path
from autograder.sandbox import timing


@dataclass
class Context:
    exercise: Exercise
    measurement: Measurement
    calls: list
    expected: list  # reference outputs, computed from the grader's own copy before the submission loaded
    submission: ModuleType
    master: ModuleType
    entry: object  # the learner's callable (after the factory, if any)
    truth: dict = field(default_factory=dict)  # answers the grader measured itself
    submission_file: str = ""
    starter_entry: object = None  # zero-argument function returning the starter's callable
    expected_output: list = field(default_factory=list)  # per call: what the reference printed/logged (output checks)
    prepared: dict = field(default_factory=dict)  # check name -> reference run made before the submission loaded (nonstrict)
    options: dict = field(default_factory=dict)  # the compile options the measurement used (for checks that measure again)
    driver: object = None  # the learner's driver function, when the exercise has one


def _lesson(spec: CheckSpec, exercise: Exercise) -> str:
    return f"Lesson section {spec.section} ({exercise.rel(exercise.lesson)}) teaches this."


def _where(site: dict) -> str:
    if not site.get("file"):
        return ""
    code = site.get("code", "").split("  #")[0].strip()
    code = f"  `{code}`" if code else ""
    return f"{_short(site['file'])}:{site['line']} in {site.get('function', '?')}(){code}"


_short = short_path


def describe_failure(error: dict) -> str:
    where = _where(error)
    if error["kind"] == "graph_break":
        first = error["message"].splitlines()[0]
        return f"Graph break{' at ' + where if where else ''}: {first}"
    if error["kind"] == "recompile_limit":
        return f"Hit the recompile limit: {error['message']}"
    if error["kind"] == "exception":
        return f"Your code raised {error['message'].splitlines()[0]}" + (f" at {where}" if where else "")
    return f"The compiler failed: {error['message'].splitlines()[0]}"


def check_compiles(spec, ctx: Context) -> CheckResult:
    error = ctx.measurement.error
    if error is None:
        mode = "fullgraph=True" if ctx.exercise.compile.get("fullgraph") else "torch.compile"
        return CheckResult.outcome(spec, True, f"All {ctx.measurement.calls} calls ran under {mode}.")
    return CheckResult.outcome(spec, False, f"{describe_failure(error)}. {_lesson(spec, ctx.exercise)}")


def check_graphs(spec, ctx: Context) -> CheckResult:
    m, p = ctx.measurement, spec.params
    wanted = []
    ok = True
    if "equal" in p:
        ok &= m.graphs == p["equal"]
        wanted.append(f"exactly {p['equal']}")
    if "min" in p:
        ok &= m.graphs >= p["min"]
        wanted.append(f"at least {p['min']}")
    if "max" in p:
        ok &= m.graphs <= p["max"]
        wanted.append(f"at most {p['max']}")
    message = f"{m.graphs} graph(s) compiled over {m.calls} call(s); expected {' and '.join(wanted)}."
    if not ok and m.error:
        message += " No complete run: the first failed check above says why."
    if not ok and m.break_sites:
        message += " First break: " + _where(m.break_sites[0]) + " — " + m.break_sites[0]["reason"].splitlines()[0] + "."
    if not ok and m.recompiles:
        message += f" {m.recompiles} of them are recompiles" + (f"; first failing guard: {m.recompile_reasons[0]}" if m.recompile_reasons else "") + "."
    if not ok:
        message += " " + _lesson(spec, ctx.exercise)
    return CheckResult.outcome(spec, ok, message)


def check_graph_breaks(spec, ctx: Context) -> CheckResult:
    m = ctx.measurement
    allowed = spec.params.get("allowed", [])
    limit = spec.params.get("max", 0)
    if m.error and m.error["kind"] == "graph_break":
        return CheckResult.outcome(spec, False, f"{describe_failure(m.error)}. {_lesson(spec, ctx.exercise)}")
    # An allowed entry is Dynamo's break type (exact, e.g. "Unsupported Tensor.backward() call") or, as
    # before break types were recorded, a substring of the reason.
    unexpected = [b for b in m.break_sites if not any(a == b.get("type") or a in b["reason"] for a in allowed)]
    ok = m.graph_breaks <= limit and not unexpected
    if ok:
        return CheckResult.outcome(spec, True, f"{m.graph_breaks} graph break(s); at most {limit} allowed.")
    worst = (unexpected or m.break_sites)[0]
    return CheckResult.outcome(spec, False, f"{m.graph_breaks} graph break(s), at most {limit} allowed. "
                               f"Break at {_where(worst)}: {worst['reason'].splitlines()[0]}. {_lesson(spec, ctx.exercise)}")


def check_recompiles(spec, ctx: Context) -> CheckResult:
    m = ctx.measurement
    limit = spec.params.get("max", 0)
    ok = m.recompiles <= limit and not (m.error and m.error["kind"] == "recompile_limit")
    message = f"{m.recompiles} recompile(s) over {m.calls} call(s); at most {limit} allowed."
    if not ok:
        if m.recompile_reasons:
            message += f" The guard that failed first: {m.recompile_reasons[0]}."
        if m.error:
            message += f" {describe_failure(m.error)}."
        message += " " + _lesson(spec, ctx.exercise)
    return CheckResult.outcome(spec, ok, message)


def check_compiled_calls(spec, ctx: Context) -> CheckResult:
    m = ctx.measurement
    expected = len(ctx.calls)
    ok = m.compiled_calls == expected and m.error is None
    message = f"{m.compiled_calls} of {expected} calls ran compiled code."
    if not ok:
        message += (" The others ran eagerly (a recompile limit, a skipped frame or a stance sends calls back to"
                    f" Python without any error). {_lesson(spec, ctx.exercise)}")
    return CheckResult.outcome(spec, ok, message)


def compare(actual, expected, rtol: float, atol: float, path: str = "output") -> str | None:
    """None when ``actual`` matches ``expected``; otherwise where and how they differ."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return f"{path} should be a tensor, got {type(actual).__name__}"
        if actual.shape != expected.shape:
            return f"{path} has shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
        if actual.dtype != expected.dtype:
            return f"{path} has dtype {actual.dtype}, expected {expected.dtype}"
        if not torch.allclose(actual.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True):
            worst = (actual.double() - expected.double()).abs().nan_to_num(math.inf).max().item()
            return f"{path} differs from the reference (largest difference {worst:.3g})"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"{path} should be a {type(expected).__name__} of {len(expected)} items"
        for i, (a, e) in enumerate(zip(actual, expected)):
            problem = compare(a, e, rtol, atol, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return f"{path} should be a dict with keys {sorted(expected)}"
        for key in expected:
            problem = compare(actual[key], expected[key], rtol, atol, f"{path}[{key!r}]")
            if problem:
                return problem
        return None
    if isinstance(expected, float):
        ok = isinstance(actual, (int, float)) and math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol)
        return None if ok else f"{path} is {actual!r}, expected {expected!r}"
    return None if actual == expected else f"{path} is {actual!r}, expected {expected!r}"


def check_correct(spec, ctx: Context) -> CheckResult:
    m = ctx.measurement
    rtol, atol = spec.params.get("rtol", 1e-5), spec.params.get("atol", 1e-6)
    for number, (actual, expected) in enumerate(zip(m.outputs, ctx.expected), start=1):
        if isinstance(actual, BaseException):
            return CheckResult.outcome(spec, False, f"Call {number} of {len(ctx.calls)} did not return, so nothing could be compared ({m.error['kind'].replace('_', ' ')}).")
        problem = compare(actual, expected, rtol, atol)
        if problem:
            return CheckResult.outcome(spec, False, f"Call {number} of {len(ctx.calls)} (inputs the grader drew): {problem}. "
                                       "Results are compared with the reference solution, not with your eager run.")
    if len(m.outputs) < len(ctx.expected):
        return CheckResult.outcome(spec, False, f"Only {len(m.outputs)} of {len(ctx.expected)} calls ran.")
    return CheckResult.outcome(spec, True, f"All {len(ctx.expected)} outputs match the reference on the grader's inputs.")


def check_answers(spec, ctx: Context) -> CheckResult:
    name = spec.params.get("constant", "ANSWERS")
    given = getattr(ctx.submission, name, None)
    truth = ctx.truth.get(spec.name, {})
    if not isinstance(given, dict):
        return CheckResult.outcome(spec, False, f"Define {name} as a dict with the keys {sorted(truth)}.")
    off = [k for k in truth if given.get(k) != truth[k]]
    missing = [k for k in off if given.get(k) is None]
    wrong = [k for k in off if k not in missing]
    if not missing and not wrong:
        return CheckResult.outcome(spec, True, f"All {len(truth)} answers in {name} match what the grader measured.")
    parts = []
    if missing:
        parts.append(f"still unanswered: {', '.join(missing)}")
    if wrong:
        parts.append(f"not what the grader measured: {', '.join(wrong)}")
    return CheckResult.outcome(spec, False, f"{name}: {'; '.join(parts)}. Run the experiment in the lesson and count. {_lesson(spec, ctx.exercise)}")


def check_speed(spec, ctx: Context) -> CheckResult:
    device = timing.device_kind()
    missing = [need for need in spec.needs if need == "cuda" and device != "cuda"]
    if missing:
        return CheckResult.skipped(spec, "Skipped: this speed check needs a CUDA GPU and none is present. It was not passed, only not run.")
    if ctx.measurement.error:
        return CheckResult.outcome(spec, False, "Not timed: the code did not compile and run cleanly (see the other checks).")
    thresholds = spec.params["min_ratio"]
    threshold = thresholds.get(device) if isinstance(thresholds, dict) else thresholds
    if threshold is None:
        return CheckResult.skipped(spec, f"Skipped: no speed threshold is set for {device}.")
    args = ctx.calls[0]
    baseline = ctx.entry
    if spec.params.get("against", "eager") == "starter":
        baseline = ctx.starter_entry()
    candidate = torch.compile(ctx.entry, backend=spec.params.get("backend", "inductor"), **{
        k: v for k, v in ctx.exercise.compile.items() if k in ("fullgraph", "dynamic")})
    with torch.no_grad():
        timed = timing.speed_ratio(baseline, candidate, copy.deepcopy(args),
                                   warmup=spec.params.get("warmup", 3), repeats=spec.params.get("repeats", 15))
    ctx.measurement.__dict__.setdefault("timings", {})[spec.name] = timed
    ok = timed["ratio"] >= threshold
    return CheckResult.outcome(spec, ok, f"{timed['ratio']:.2f}x faster than {spec.params.get('against', 'eager')} "
                               f"({timed['baseline_ms']:.3f} ms vs {timed['candidate_ms']:.3f} ms, median of {timed['repeats']}); "
                               f"needs {threshold}x on {device}.")


def check_custom(spec, ctx: Context) -> CheckResult:
    function = getattr(ctx.master, spec.params["function"])
    ok, message = function(ctx)
    return CheckResult.outcome(spec, bool(ok), message if ok else f"{message} {_lesson(spec, ctx.exercise)}")


RUNNERS = {
    # Kinds that a topic needs beyond these live in their own module of this package, which adds
    # them here with @register; the package's __init__ imports every one of them.
    "compiles": check_compiles,
    "graphs": check_graphs,
    "graph_breaks": check_graph_breaks,
    "recompiles": check_recompiles,
    "compiled_calls": check_compiled_calls,
    "correct": check_correct,
    "answers": check_answers,
    "speed": check_speed,
    "custom": check_custom,
}


def register(kind: str):
    """Add a check kind implemented in another module; declare its parameters in exercise.CHECK_KINDS."""

    def add(function):
        RUNNERS[kind] = function
        return function

    return add


def _run_one(spec, ctx: Context) -> CheckResult:
    try:
        return RUNNERS[spec.kind](spec, ctx)
    except Exception as exc:  # a check must never take the whole grade down
        return CheckResult.outcome(spec, False, f"This check could not run: {type(exc).__name__}: {exc}")


def run_checks(ctx: Context, costly: bool = True) -> list[CheckResult]:
    """Run every check, reported in the order the exercise declares them.

    Structural checks run first. Timing checks (exercise.COSTLY_KINDS) run only when ``costly`` and
    every structural check passed: a grade that already fails gains nothing from seconds of timing.
    Otherwise they are reported as skipped, with the reason. ``costly="always"`` times them even
    when the structure fails, so a benchmark can show what a starter's timing would have measured.
    """
    cheap = {spec.name: _run_one(spec, ctx) for spec in ctx.exercise.checks if spec.kind not in COSTLY_KINDS}
    structure_ok = all(result.status != "failed" for result in cheap.values())
    results = []
    for spec in ctx.exercise.checks:
        if spec.name in cheap:
            results.append(cheap[spec.name])
        elif not costly:
            results.append(CheckResult.skipped(spec, "Not measured in this run: it grades structure only."))
        elif not structure_ok and costly != "always":  # "always": benchmarks time starters too
            results.append(CheckResult.skipped(spec, "Not timed: the other checks fail, so timing cannot change the grade. Fix those first."))
        else:
            results.append(_run_one(spec, ctx))
    return results


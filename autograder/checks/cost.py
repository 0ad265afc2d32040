"""Check kinds for chapters 5 and 6: what compiling costs (compile time) and what each call costs
before the graph runs (guard evaluation).

Structural kinds are cheap and run in every grading; the timing kinds are in
``exercise.COSTLY_KINDS`` and are skipped in structure-only runs. Like every check, these never
touch ``torch._dynamo`` themselves: ``probe`` measures.

- ``guards``: the grader compiles the entry again with a keep-all-recording guard filter wrapped
  around the learner's own (``COMPILE_OPTIONS["guard_filter_fn"]``), runs the schedule, and checks
  the guards kept (``max_kept``, ``min_kept_fraction``), the graph inputs of each graph
  (``max_inputs``: parameters installed as free tensors are no inputs) and ``config`` (dynamo
  config keys that must hold these values while the learner's code runs);
- ``subgraphs``: at least ``min`` ``invoke_subgraph`` calls in the graphs (nested_compile_region
  reused the traced region), and at most ``max_graphs`` graphs;
- ``stance_calls``: at least ``min`` calls of the schedule ran compiled code under
  ``set_stance(skip_guard_eval_unsafe=True)``;
- ``compile_time`` (costly): Dynamo's compile time over a cold run of the schedule, starter over submission, each
  measurement from a reset Dynamo (and, for Inductor, caches off and an empty cache folder),
  interleaved ``repeats`` times; the ratio of the fastest run of each side, at least ``min_ratio``;
- ``guard_time`` (costly): the median "TorchDynamo Cache Lookup" time per call (the profiler's
  guard-evaluation event) of the baseline over the submission, both warm, interleaved rounds; the
  ratio of each side's fastest round at least ``min_ratio``. The median, not the mean: a fix that
  skips guard evaluation after warm-up is judged by its serving calls, and on the 2-core reference
  machine the mean let two identical starters measure 2x apart (docs/MEASUREMENTS.md).
  ``against = "starter"`` (the starting file as compiled by the grader) or ``"default"`` (the
  submission compiled with no guard filter and the exercise's allowed config keys at their
  defaults).
"""

from __future__ import annotations

import statistics
import sys

import torch

from autograder.sandbox import probe
from autograder.checks.core import Context, _lesson, register
from autograder.format.exercise import starter_source
from autograder.format.result import CheckResult


def _starter_module(ctx: Context):
    master = ctx.prepared.get("_master_text") or ctx.exercise.master.read_text(encoding="utf-8")  # read before the drop (_child)
    text = starter_source(master, ctx.exercise.id, ctx.exercise.title)
    module = type(sys)("autograder_starter_cost")
    torch.manual_seed(0)
    exec(compile(text, "<starter>", "exec"), module.__dict__)
    return module


def _build(ctx: Context, module) -> tuple:
    """(fresh entry, driver, guard-related options) of ``module`` (the submission or the starter)."""
    made = getattr(module, ctx.exercise.entry)
    if ctx.exercise.factory:
        torch.manual_seed(0)
        made = made()
    driver = getattr(module, ctx.exercise.driver) if ctx.exercise.driver else None
    options = {k: v for k, v in ctx.options.items() if k in ("fullgraph", "dynamic")}
    chosen = getattr(module, "COMPILE_OPTIONS", {}) or {}
    if isinstance(chosen, dict):
        for key in ctx.exercise.submission_may_set:
            if key in chosen:
                options[key] = chosen[key]
            elif key in options:
                del options[key]
    return made, driver, options


def _guard_report(ctx: Context) -> dict:
    cached = ctx.prepared.get("_guard_report")
    if cached is None:
        made, driver, options = _build(ctx, ctx.submission)
        cached = ctx.prepared["_guard_report"] = probe.guard_report(made, ctx.calls, options, driver=driver)
    return cached


@register("guards")
def check_guards(spec, ctx: Context) -> CheckResult:
    p = spec.params
    report = _guard_report(ctx)
    if report["error"]:
        return CheckResult.outcome(spec, False, f"Not measured: the schedule raised {report['error']}. The first failed check says why.")
    if report["graphs"] == 0:  # torch.compiler.disable and friends: nothing compiled, nothing guarded
        return CheckResult.outcome(spec, False, "No graph was compiled, so there are no guards to measure: code that "
                                   f"runs eagerly is no fix for guard overhead. {_lesson(spec, ctx.exercise)}")
    problems = []
    said = [f"{report['kept']} of {report['offered']} guards kept over {report['compiles']} compile(s)"]
    if "max_kept" in p and report["kept"] > p["max_kept"]:
        problems.append(f"at most {p['max_kept']} guards may be kept")
    if "min_kept_fraction" in p and report["kept"] < p["min_kept_fraction"] * report["offered"]:
        problems.append(f"at least {p['min_kept_fraction']:.0%} of the guards must be kept: a dropped guard can leave an answer stale")
    if "max_inputs" in p:
        said.append(f"graph inputs per graph: {report['inputs']}")
        if any(n > p["max_inputs"] for n in report["inputs"]):
            problems.append(f"each graph may take at most {p['max_inputs']} input(s); parameters and buffers gathered as inputs are per-call work")
    for key, value in (p.get("config") or {}).items():
        now = probe.config_snapshot().get(key)
        if now != value:
            problems.append(f"torch._dynamo.config.{key} is {now!r} while your code runs; this exercise needs {value!r}")
    message = "; ".join(said) + "."
    if problems:
        return CheckResult.outcome(spec, False, f"{message} But {'; '.join(problems)}. {_lesson(spec, ctx.exercise)}")
    return CheckResult.outcome(spec, True, message)


@register("subgraphs")
def check_subgraphs(spec, ctx: Context) -> CheckResult:
    m, p = ctx.measurement, spec.params
    calls = sum(1 for t in m.graph_targets if t == "invoke_subgraph")
    ok = calls >= p.get("min", 1) and m.graphs <= p.get("max_graphs", 1) and m.error is None
    message = (f"{calls} invoke_subgraph call(s) in {m.graphs} graph(s); expected at least {p.get('min', 1)} in at most "
               f"{p.get('max_graphs', 1)} graph(s).")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ctx.exercise)}")


@register("stance_calls")
def check_stance_calls(spec, ctx: Context) -> CheckResult:
    report = _guard_report(ctx)
    skipped = sum(report["skipped_eval"])
    wanted = spec.params.get("min", 1)
    if report["error"]:
        return CheckResult.outcome(spec, False, f"The schedule raised {report['error']}. {_lesson(spec, ctx.exercise)}")
    ok = skipped >= wanted
    message = f"{skipped} of {len(ctx.calls)} calls ran compiled code with guard evaluation skipped; expected at least {wanted}."
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ctx.exercise)}")


def _fastest_ratio(pairs, floor: float) -> float:
    """Baseline over submission, each side's fastest of its interleaved runs. Other processes only
    ever add time, and a burst of load can land on one side of a pair: on the loaded 2-core machine
    the median of pair ratios let a starter measure up to 3.3x against itself."""
    return min(b for b, _ in pairs) / max(min(a for _, a in pairs), floor)


@register("compile_time")
def check_compile_time(spec, ctx: Context) -> CheckResult:
    if ctx.measurement.error:
        return CheckResult.outcome(spec, False, "Not timed: the code did not compile and run cleanly (see the other checks).")
    p = spec.params
    backend, repeats = p.get("backend", "aot_eager"), p.get("repeats", 3)
    starter = _starter_module(ctx)
    ratios, pairs = [], []
    for _ in range(repeats):  # interleaved: starter, submission, starter, submission, ...
        made, driver, options = _build(ctx, starter)
        before = probe.cold_compile_seconds(made, ctx.calls, backend, driver=driver, options=options, clock="compile")
        made, driver, options = _build(ctx, ctx.submission)
        after = probe.cold_compile_seconds(made, ctx.calls, backend, driver=driver, options=options, clock="compile")
        pairs.append((before, after))
        ratios.append(before / max(after, 1e-9))
    ratio = _fastest_ratio(pairs, floor=1e-9)  # of Dynamo's own compile time: the run part of a cold schedule is far noisier
    timed = {"ratio": ratio, "ratios": ratios, "seconds": pairs, "backend": backend}
    ctx.measurement.__dict__.setdefault("timings", {})[spec.name] = timed
    ok = ratio >= p["min_ratio"]
    message = (f"Cold compile of the schedule ({backend}, time Dynamo spent compiling): starter {statistics.median(b for b, _ in pairs):.2f} s, yours "
               f"{statistics.median(a for _, a in pairs):.2f} s (medians); fastest run each: {ratio:.2f}x faster ({repeats} interleaved "
               f"runs); needs {p['min_ratio']}x.")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ctx.exercise)}")


@register("guard_time")
def check_guard_time(spec, ctx: Context) -> CheckResult:
    if ctx.measurement.error:
        return CheckResult.outcome(spec, False, "Not timed: the code did not compile and run cleanly (see the other checks).")
    p = spec.params
    against, repeats, rounds = p.get("against", "starter"), p.get("repeats", 5), p.get("rounds", 3)
    defaults = probe.config_defaults(ctx.exercise.allow_config)
    if against == "starter":
        base_entry, base_driver, base_options = _build(ctx, _starter_module(ctx))
    else:
        base_entry, base_driver, base_options = _build(ctx, ctx.submission)
        base_options.pop("guard_filter_fn", None)
    with torch.no_grad():
        probe.clean_state()
        with probe.dynamo_config(defaults):
            baseline = probe.compile_with(base_entry, "eager", base_options)
            probe.lookup_us(baseline, ctx.calls, base_driver)  # compiles (warm-up)
        made, driver, options = _build(ctx, ctx.submission)
        candidate = probe.compile_with(made, "eager", options)
        probe.lookup_us(candidate, ctx.calls, driver)
        ratios, pairs = [], []
        for _ in range(repeats):
            before = probe.lookup_us(baseline, ctx.calls, base_driver, rounds, statistic="median")
            after = probe.lookup_us(candidate, ctx.calls, driver, rounds, statistic="median")
            pairs.append((before, after))
            ratios.append(before / max(after, 1e-3))
        probe.clean_state()
    ratio = _fastest_ratio(pairs, floor=1e-3)
    ctx.measurement.__dict__.setdefault("timings", {})[spec.name] = {"ratio": ratio, "ratios": ratios, "lookup_us": pairs}
    ok = ratio >= p["min_ratio"]
    message = (f"Guard evaluation (profiler \"TorchDynamo Cache Lookup\", median per call): {against} "
               f"{statistics.median(b for b, _ in pairs):.1f} us, yours {statistics.median(a for _, a in pairs):.1f} us (medians); "
               f"fastest round each: {ratio:.2f}x less ({repeats} interleaved rounds); needs {p['min_ratio']}x.")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ctx.exercise)}")

"""Check kinds for chapters 5 and 6: what compiling costs (compile time) and what each call costs
before the graph runs (guard evaluation).

Structural kinds are cheap and run in every grading; the timing kinds are in
``exercise.COSTLY_KINDS`` and are skipped in structure-only runs. The learner's process measures
(``autograder.sandbox.kinds.cost``); these decide, in the judge, from what it sent. A timing with
no graph compiled fails: there is nothing compiled to time.

- ``guards``: the grader compiles the entry again with a keep-all-recording guard filter wrapped
  around the learner's own (``COMPILE_OPTIONS["guard_filter_fn"]``), runs the schedule, and checks
  the guards kept (``max_kept``, ``min_kept_fraction``), the graph inputs of each graph
  (``max_inputs``: parameters installed as free tensors are no inputs) and ``config`` (dynamo
  config keys that must hold these values at every compile, read while each compile builds its
  guards: a ``config.patch`` block around the learner's call counts, a setting made afterwards not);
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

from autograder.checks.core import _lesson, answers_differ, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Float, Int, ListOf, Maybe, Plain, Record, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult

REPORT = Record({"offered": Int(0, 10**9), "kept": Int(0, 10**9), "compiles": Int(0, 10**7), "inputs": ListOf(Int(0, 10**7)),
                 "graphs": Int(0, 10**7), "skipped_eval": ListOf(Bool()), "error": Maybe(Text(2000))})


@decides("guards", facts=Record({}, {"report": REPORT, "config_at_compile": ListOf(Plain(), 10**5), "measure_failed": Text(2000)}))
def check_guards(spec, ev: Evidence) -> CheckResult:
    p = spec.params
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    report = ev.facts["report"]
    if report["error"]:
        return CheckResult.outcome(spec, False, f"Not measured: the schedule raised {report['error']}. The first failed check says why.")
    if report["graphs"] == 0:  # torch.compiler.disable and friends: nothing compiled, nothing guarded
        return CheckResult.outcome(spec, False, "No graph was compiled, so there are no guards to measure: code that "
                                   f"runs eagerly is no fix for guard overhead. {_lesson(spec, ev.exercise)}")
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
    compiles = [seen if isinstance(seen, dict) else {} for seen in ev.facts.get("config_at_compile") or []]
    for key, value in (p.get("config") or {}).items():
        off = [(number, seen.get(key)) for number, seen in enumerate(compiles, 1)
               if type(seen.get(key)) is not type(value) or seen.get(key) != value]
        if not compiles:
            problems.append(f"no compile was seen building guards, so torch._dynamo.config.{key} could not be read")
        elif off:
            number, now = off[0]
            problems.append(f"torch._dynamo.config.{key} was {now!r} when {len(off)} of {len(compiles)} compile(s) built "
                            f"their guards (the first: compile {number}); this exercise needs {value!r} while your code "
                            "compiles, since a setting made after a compile does not change the guards it built")
    message = "; ".join(said) + "."
    if problems:
        return CheckResult.outcome(spec, False, f"{message} But {'; '.join(problems)}. {_lesson(spec, ev.exercise)}")
    return CheckResult.outcome(spec, True, message)


@decides("subgraphs")
def check_subgraphs(spec, ev: Evidence) -> CheckResult:
    m, p = ev.measurement, spec.params
    calls = sum(1 for t in m.graph_targets if t == "invoke_subgraph")
    ok = calls >= p.get("min", 1) and m.graphs <= p.get("max_graphs", 1) and m.error is None
    message = (f"{calls} invoke_subgraph call(s) in {m.graphs} graph(s); expected at least {p.get('min', 1)} in at most "
               f"{p.get('max_graphs', 1)} graph(s).")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ev.exercise)}")


@decides("stance_calls", facts=Record({}, {"report": REPORT, "measure_failed": Text(2000)}))
def check_stance_calls(spec, ev: Evidence) -> CheckResult:
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    report = ev.facts["report"]
    skipped = sum(report["skipped_eval"])
    wanted = spec.params.get("min", 1)
    if report["error"]:
        return CheckResult.outcome(spec, False, f"The schedule raised {report['error']}. {_lesson(spec, ev.exercise)}")
    ok = skipped >= wanted
    message = f"{skipped} of {ev.calls} calls ran compiled code with guard evaluation skipped; expected at least {wanted}."
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ev.exercise)}")


def _fastest_ratio(pairs, floor: float) -> float:
    """Baseline over submission, each side's fastest of its interleaved runs. Other processes only
    ever add time, and a burst of load can land on one side of a pair: on the loaded 2-core machine
    the median of pair ratios let a starter measure up to 3.3x against itself."""
    return min(b for b, _ in pairs) / max(min(a for _, a in pairs), floor)


PAIRS = ListOf(ListOf(Float(), 2), 1000)


def _untimed(spec, ev: Evidence) -> CheckResult | None:
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if ev.measurement.error or ev.facts.get("not_run"):
        return CheckResult.outcome(spec, False, "Not timed: the code did not compile and run cleanly (see the other checks).")
    return None


@decides("compile_time", facts=Record({}, {"not_run": Bool(), "seconds": PAIRS, "graphs": ListOf(Int(0, 10**7), 1000),
                                           "backend": Text(60), "measure_failed": Text(2000),
                                           "answers": Record({"checked": Int(0, 10**6)}, {"differ": Text(600)})}))
def check_compile_time(spec, ev: Evidence) -> CheckResult:
    untimed = _untimed(spec, ev)
    if untimed:
        return untimed
    p = spec.params
    pairs, backend = ev.facts["seconds"], ev.facts.get("backend", p.get("backend", "aot_eager"))
    if not pairs or len(pairs) != len(ev.facts.get("graphs") or []) or any(len(pair) != 2 for pair in pairs):
        return CheckResult.outcome(spec, False, "The grader's compile-time measurement is incomplete, so it cannot pass.")
    if min(ev.facts["graphs"]) == 0:
        return CheckResult.outcome(spec, False, "Your code compiled no graph in a cold run of the schedule, so there is no compile "
                                   "time to compare: code that is not compiled is no faster compile. "
                                   f"{_lesson(spec, ev.exercise)}")
    differ = answers_differ(spec, ev, "In the cold runs the grader timed", "a faster compile")
    if differ:
        return differ
    ratio = _fastest_ratio(pairs, floor=1e-9)  # of Dynamo's own compile time: the run part of a cold schedule is far noisier
    ok = ratio >= p["min_ratio"]
    message = (f"Cold compile of the schedule ({backend}, time Dynamo spent compiling): starter {statistics.median(b for b, _ in pairs):.2f} s, yours "
               f"{statistics.median(a for _, a in pairs):.2f} s (medians); fastest run each: {ratio:.2f}x faster ({len(pairs)} interleaved "
               f"runs); needs {p['min_ratio']}x.")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ev.exercise)}")


def compile_time_timing(facts: dict) -> dict:
    pairs = facts.get("seconds") or []
    return {"ratio": _fastest_ratio(pairs, 1e-9) if pairs else 0.0, "ratios": [b / max(a, 1e-9) for b, a in pairs],
            "seconds": pairs, "backend": facts.get("backend"), "graphs": facts.get("graphs")}


@decides("guard_time", facts=Record({}, {"not_run": Bool(), "lookup_us": PAIRS, "graphs": Int(0, 10**7), "against": Text(40),
                                         "measure_failed": Text(2000)}))
def check_guard_time(spec, ev: Evidence) -> CheckResult:
    untimed = _untimed(spec, ev)
    if untimed:
        return untimed
    p = spec.params
    pairs, against = ev.facts["lookup_us"], p.get("against", "starter")
    if not pairs or any(len(pair) != 2 for pair in pairs):
        return CheckResult.outcome(spec, False, "The grader's guard-time measurement is incomplete, so it cannot pass.")
    if not ev.facts.get("graphs"):
        return CheckResult.outcome(spec, False, "Your code compiled no graph, so no guards were evaluated and there is nothing to "
                                   f"compare: code that runs eagerly is no fix for guard overhead. {_lesson(spec, ev.exercise)}")
    if any(value != value for pair in pairs for value in pair):  # NaN: the profiler saw no cache lookup
        return CheckResult.outcome(spec, False, "The profiler recorded no cache lookup for one side, so guard evaluation could not "
                                   f"be compared. {_lesson(spec, ev.exercise)}")
    ratio = _fastest_ratio(pairs, floor=1e-3)
    ok = ratio >= p["min_ratio"]
    message = (f"Guard evaluation (profiler \"TorchDynamo Cache Lookup\", median per call): {against} "
               f"{statistics.median(b for b, _ in pairs):.1f} us, yours {statistics.median(a for _, a in pairs):.1f} us (medians); "
               f"fastest round each: {ratio:.2f}x less ({len(pairs)} interleaved rounds); needs {p['min_ratio']}x.")
    return CheckResult.outcome(spec, ok, message if ok else f"{message} {_lesson(spec, ev.exercise)}")


def guard_time_timing(facts: dict) -> dict:
    pairs = facts.get("lookup_us") or []
    clean = [pair for pair in pairs if all(v == v for v in pair)]
    return {"ratio": _fastest_ratio(clean, 1e-3) if clean else 0.0, "ratios": [b / max(a, 1e-3) for b, a in clean],
            "lookup_us": pairs, "graphs": facts.get("graphs")}


DECIDERS_TIMING = {"compile_time": compile_time_timing, "guard_time": guard_time_timing}


def _attach_timings() -> None:
    from autograder.checks.registry import DECIDERS

    for kind, timing in DECIDERS_TIMING.items():
        DECIDERS[kind].timing = timing


_attach_timings()

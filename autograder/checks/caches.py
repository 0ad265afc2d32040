"""The ``warm_start`` and ``later_run`` kinds (chapter 5, compile caches).

``later_run``: the job run again as new processes would (each a fresh import of the learner's
file and a reset Dynamo, the compile-cache folder kept, ``probe.job_reruns``); every run after the
first compiles at most ``max`` graphs, and the first compiles at least one. What the first run
learned reaches the next only through the folder (profile-guided recompilation under
``torch.compiler.config.job_id``).

``warm_start``: a restarted process given only the bytes
the learner's code saved compiles from the cache, and measurably faster than a cold start.

The measure part (``autograder.sandbox.kinds.caches``) is ``probe.warm_start_report``: a cold start in a forked child with an empty
Inductor cache, which ends by calling the learner's ``save`` function; then a warm start in
another forked child with another empty cache, which begins by calling the learner's ``load``
function with those bytes. Only the bytes cross; each side compiles a fresh build of the entry
with Inductor and answers the first call of the schedule, and reports plain data.

The decision, from that data alone:

- both starts ran (a ``save``/``load`` that raises, or a compile that fails, is named);
- ``save`` returned bytes;
- every graph the warm start compiled was an FX-graph cache hit, with no miss (deterministic:
  this is what proves the bytes carried the compiled graphs);
- the warm start's answer equals the reference's for that call;
- the CPU time of the cold start over the warm start's is at least ``min_ratio``. CPU time of
  the grading process, from the first compile to the first answer, ``load`` included: the C++
  compiler runs as a child process and is not counted, because on a CPU the artifacts do not
  carry built C++ kernels and both sides build them alike. Each side is timed once (the verdict
  study in docs/MEASUREMENTS.md chose the threshold).

Parameters: ``save`` and ``load`` (the learner's function names; defaults
``save_compile_state`` and ``load_compile_state``), ``min_ratio``, ``backend`` (must be
"inductor": it is what the sandbox reads to know that this grading builds C++), ``timeout``
(seconds per start, default 120).

Not a costly (second-phase) kind: the cache hits decide most verdicts, the starter must fail it
in structure-only runs too, and each side is timed once, so it runs in every grading. What it
timed is shown under ``measurements["timings"]``.
"""

from __future__ import annotations

import math

from autograder.checks.core import _lesson, compare, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, DictOf, Float, Int, ListOf, Maybe, Record, Tensor, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult

DEFAULT_SAVE, DEFAULT_LOAD = "save_compile_state", "load_compile_state"

SIDE = Record({}, {"error": Maybe(Text(600)), "stage": Maybe(Text(40)), "cpu_s": Maybe(Float()),
                   "counters": DictOf(Int(0, 10**9), max_len=20), "output": Maybe(Tensor()), "blob_type": Maybe(Text(200)),
                   "where": Text(2000), "timed_out": Bool()})
WARM_START_FACTS = Record({}, {"missing": ListOf(Text(200), 2), "cold": Maybe(SIDE), "warm": Maybe(SIDE), "blank": Maybe(SIDE),
                               "blob_bytes": Maybe(Int(0, 2**40)), "problem": Maybe(Text(400)), "measure_failed": Text(2000)})


def timings(facts: dict) -> dict:
    """What the result shows under measurements["timings"]: both CPU times, their ratio, the warm start's cache counters."""
    cold, warm = facts.get("cold") or {}, facts.get("warm") or {}
    timed = {"cold_cpu_s": cold.get("cpu_s"), "warm_cpu_s": warm.get("cpu_s"), "warm_counters": warm.get("counters"),
             "blob_bytes": facts.get("blob_bytes")}
    if timed["cold_cpu_s"] and timed["warm_cpu_s"]:
        timed["ratio"] = timed["cold_cpu_s"] / max(timed["warm_cpu_s"], 1e-3)
    return timed


def _failed_start(side: dict, which: str, names: dict) -> str:
    stage = side.get("stage")
    doing = {"save": f"your `{names['save']}()`", "load": f"your `{names['load']}(blob)`",
             "compile": "compiling and running the model"}.get(stage, "the start-up")
    return f"The {which} start failed in {doing}: {side['error']}."


def decide_warm_start(spec, facts: dict, expected, exercise) -> CheckResult:
    """The verdict from the report alone (``expected``: the reference's answer to the first call)."""
    p = spec.params
    names = {"save": p.get("save", DEFAULT_SAVE), "load": p.get("load", DEFAULT_LOAD)}
    lesson = _lesson(spec, exercise)
    if facts.get("missing"):
        return CheckResult.outcome(spec, False, f"Your file must define {' and '.join(f'`{m}`' for m in facts['missing'])}: the grader "
                                   f"calls them at the end of the first start and at the beginning of the second. "
                                   f"`python -m autograder reset {exercise.id}` restores the starting file.")
    cold, warm = facts.get("cold") or {}, facts.get("warm") or {}
    if cold.get("error"):
        return CheckResult.outcome(spec, False, f"{_failed_start(cold, 'first (cold)', names)} {lesson}")
    if facts.get("problem"):
        return CheckResult.outcome(spec, False, f"`{names['save']}()` {facts['problem']}: the next container receives bytes only. {lesson}")
    if warm.get("error"):
        return CheckResult.outcome(spec, False, f"{_failed_start(warm, 'second (warm)', names)} {lesson}")
    counters = warm.get("counters") or {}
    hits, misses = counters.get("fx_hits", 0), counters.get("fx_misses", 0)
    cold_s, warm_s = cold.get("cpu_s") or 0.0, warm.get("cpu_s") or 0.0
    ratio = cold_s / max(warm_s, 1e-3)
    timed = (f"CPU time to the first answer: cold start {cold_s:.2f} s, warm start {warm_s:.2f} s "
             f"({ratio:.1f}x; {facts.get('blob_bytes') or 0} bytes handed over)")
    if misses or not hits:
        return CheckResult.outcome(spec, False, f"The second container, given only the {facts.get('blob_bytes') or 0} bytes your "
                                   f"`{names['save']}()` returned, compiled from scratch: {misses} FX-graph cache miss(es), "
                                   f"{hits} hit(s). Nothing on disk survives a container, and neither does anything in memory. "
                                   f"{timed}. {lesson}")
    blank = facts.get("blank") or {}
    blank_counters = blank.get("counters") or {}
    if not blank.get("error") and blank_counters.get("fx_hits", 0) and not blank_counters.get("fx_misses", 0):
        return CheckResult.outcome(spec, False, f"A third container, whose `{names['load']}` was given empty bytes, also found every "
                                   f"graph in the cache ({blank_counters.get('fx_hits')} FX-graph hit(s)): the compiled state "
                                   f"reached it some other way than the bytes `{names['save']}()` returned (a file, a fixed path), "
                                   f"and a real container would not have it. {lesson}")
    if warm.get("output") is None:
        return CheckResult.outcome(spec, False, f"The warm start's model returned no tensor. {lesson}")
    problem = compare(warm["output"], expected, 1e-4, 1e-5, "the warm start's answer")
    if problem:
        return CheckResult.outcome(spec, False, f"{problem}: a warm start must answer as the model does. {lesson}")
    wanted = p["min_ratio"]
    if not math.isfinite(ratio) or ratio < wanted:
        return CheckResult.outcome(spec, False, f"Every graph came from the cache, but the warm start was not fast enough: {timed}; "
                                   f"needs {wanted}x. {lesson}")
    return CheckResult.outcome(spec, True, f"The warm start compiled every graph from the cache ({hits} FX-graph hit(s), "
                               f"no miss). {timed}; needs {wanted}x.")


@decides("warm_start", facts=WARM_START_FACTS, timing=timings)
def check_warm_start(spec, ev: Evidence) -> CheckResult:
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    return decide_warm_start(spec, ev.facts, ev.expected[0] if ev.expected else None, ev.exercise)


LATER_RUN_FACTS = Record({}, {"graphs": ListOf(Int(0, 10**6), 20), "reasons": ListOf(Maybe(Text(600)), 20),
                              "error": Maybe(Text(600)), "measure_failed": Text(2000)})


@decides("later_run", facts=LATER_RUN_FACTS)
def check_later_run(spec, ev: Evidence) -> CheckResult:
    """Each later run of the job (a new process, the cache folder kept) compiles at most ``max``
    graphs; the first run may pay what it must learn."""
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    f, limit = ev.facts, spec.params.get("max", 1)
    graphs = f["graphs"]
    if f["error"]:
        return CheckResult.outcome(spec, False, f"Not measured: run {len(graphs)} of the job raised {f['error']}. "
                                   "The first failed check says why.")
    if not graphs or graphs[0] == 0:
        return CheckResult.outcome(spec, False, "The first run of the job compiled no graph: code that runs eagerly is no "
                                   f"fix for compile time. {_lesson(spec, ev.exercise)}")
    runs = ", ".join(f"run {number}: {count}" for number, count in enumerate(graphs, 1))
    message = (f"Graphs compiled per run of the job, each run a new process that keeps only the compile-cache folder "
               f"({runs}); a later run may compile at most {limit}.")
    late = [(number, count) for number, count in enumerate(graphs[1:], 2) if count > limit]
    if not late:
        return CheckResult.outcome(spec, True, message)
    number, _ = late[0]
    reason = f["reasons"][number - 1] if number - 1 < len(f["reasons"]) else None
    why = (f" Run {number} compiled again what run 1 had already learned; the guard that failed: {reason}." if reason
           else f" Run {number} compiled as many graphs as a first run.")
    return CheckResult.outcome(spec, False, f"{message}{why} {_lesson(spec, ev.exercise)}")

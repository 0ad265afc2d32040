"""Verdict study of the speed-graded exercises: how often is a solution failed or a starter passed,
and how far are the measured ratios from their thresholds?

    python benchmarks/speed_verdicts.py [--exercises ID ...] [--runs 10] [--record FILE]
    python benchmarks/speed_verdicts.py --report FILE

Grades each exercise's solution and starting file ``--runs`` times (seeds 0, 1, ...), one grading
at a time, through the real ``grade()``, warm as ``watch`` and notebook checks grade. The starter is
graded with ``costly="always"``, so its speed checks run although its structure already fails: the
table shows whether the timing alone would have passed it (it must not). A grade the grader could
not judge (the timing scattered around the threshold: status ``error``) is counted apart, as
neither verdict. Per speed check: the ratio each side measured (min / median / max) and the
margin, the solution's lowest ratio over the threshold and the threshold over the starter's
highest (both above 1 when no grading came near the wrong verdict). ``--record`` appends one JSON
line per grading, so several sittings add up (``--first-seed``) and ``--report`` sums them.

A benchmark, not a test: the numbers depend on the machine and its load (shown in the table).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import discover, grade  # noqa: E402
from autograder.format.result import ERROR  # noqa: E402


def speed_exercises() -> list:
    return [e for e in discover() if any(c.kind == "speed" for c in e.checks)]


def threshold(spec, device: str = "cpu"):
    need = spec.params["min_ratio"]
    return need.get(device) if isinstance(need, dict) else need


def grade_once(exercise, side: str, seed: int) -> dict:
    path = exercise.master if side == "solution" else exercise.starter
    started = time.perf_counter()
    result = grade(exercise.id, path, seed=seed, warm=True, costly=True if side == "solution" else "always")
    seconds = time.perf_counter() - started
    timings = (result.measurements or {}).get("timings", {})
    timed = {c.name: {"ratio": (timings.get(c.name) or {}).get("ratio"), "eager_ratio": (timings.get(c.name) or {}).get("eager_ratio"),
                      "status": c.status, "needs": threshold(exercise.check(c.name), "cuda" if "cuda" in result.device else "cpu")}
             for c in result.checks if c.kind == "speed"}
    return {"exercise": exercise.id, "side": side, "seed": seed, "status": result.status, "seconds": round(seconds, 2),
            "timed": timed, "load": round(os.getloadavg()[0], 2), "device": result.device, "cpu_model": cpu_model(),
            "failed": [f"{c.name}: {c.message}" for c in result.failed_checks()] if side == "solution" else []}


def cpu_model() -> str:
    """The processor and its last-level cache: the ratios move with them (sessions ran on different VMs)."""
    model, cache = "?", "?"
    try:
        model = next(line.partition(":")[2].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    caches = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        last = max(caches.glob("index*"), key=lambda index: int((index / "level").read_text()))
        cache = (last / "size").read_text().strip()
    except (OSError, ValueError):
        pass
    return f"{model}, last-level cache {cache}"


def _spread(values) -> str:
    values = [v for v in values if v is not None]
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}" if values else "-"


def report(records: list[dict]) -> tuple[str, int]:
    by_exercise = defaultdict(list)
    for record in records:
        by_exercise[record["exercise"]].append(record)
    lines = ["| exercise | runs (solution + starter) | solution failed | starter passed | starter's speed check passed | "
             "not judged (grader) | speed ratio, solution min / median / max | starter min / median / max | threshold | "
             "margin: solution min / threshold, threshold / starter max |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    false_total = 0
    for exercise_id, rows in by_exercise.items():
        solutions = [r for r in rows if r["side"] == "solution"]
        starters = [r for r in rows if r["side"] == "starter"]
        false_fails = sum(r["status"] == "failed" for r in solutions)
        false_passes = sum(r["status"] == "passed" for r in starters)
        timing_passes = sum(any(t["status"] == "passed" for t in r["timed"].values()) for r in starters)
        unjudged = sum(r["status"] == ERROR for r in rows)
        false_total += false_fails + false_passes + timing_passes
        for name in sorted({n for r in rows for n in r["timed"]}):
            ours = [r["timed"][name]["ratio"] for r in solutions if name in r["timed"] and r["timed"][name]["ratio"] is not None]
            theirs = [r["timed"][name]["ratio"] for r in starters if name in r["timed"] and r["timed"][name]["ratio"] is not None]
            need = next(r["timed"][name]["needs"] for r in rows if name in r["timed"])
            margin = (f"{min(ours) / need:.2f}x, {need / max(theirs):.2f}x" if ours and theirs and need else "-")
            lines.append(f"| {exercise_id} `{name}` | {len(solutions)} + {len(starters)} | {false_fails}/{len(solutions)} | "
                         f"{false_passes}/{len(starters)} | {timing_passes}/{len(starters)} | {unjudged} | {_spread(ours)} | "
                         f"{_spread(theirs)} | {need}x | {margin} |")
    loads = [r["load"] for r in records]
    seconds = [r["seconds"] for r in records]
    models = sorted({r.get("cpu_model", "not recorded") for r in records})
    lines += ["", f"{len(records)} gradings on {records[0]['device'] if records else '?'} ({'; '.join(models)}); median {statistics.median(seconds):.0f} s "
              f"per grading; 1-minute load average during them: min {min(loads):.1f}, median {statistics.median(loads):.1f}, "
              f"max {max(loads):.1f}."]
    return "\n".join(lines), false_total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--exercises", nargs="*", help="exercise ids (default: every exercise with a speed check)")
    parser.add_argument("--record", type=Path, help="append one JSON line per grading to this file")
    parser.add_argument("--report", type=Path, help="only print the table of the gradings recorded in this file")
    args = parser.parse_args(argv)
    if args.report:
        table, false_total = report([json.loads(line) for line in args.report.read_text().splitlines() if line.strip()])
        print(table)
        return 1 if false_total else 0
    exercises = [e for e in speed_exercises() if not args.exercises or e.id in args.exercises]
    records, started = [], time.perf_counter()
    for run in range(args.runs):
        for exercise in exercises:
            for side in ("solution", "starter"):
                record = grade_once(exercise, side, args.first_seed + run)
                records.append(record)
                if args.record:
                    with args.record.open("a") as stream:
                        stream.write(json.dumps(record) + "\n")
                if side == "solution" and record["status"] != "passed":
                    print(f"solution {record['status']}: {exercise.id} seed {record['seed']}: {record['failed']}", file=sys.stderr, flush=True)
        print(f"run {run + 1}/{args.runs} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    table, false_total = report(records)
    print(table)
    print(f"Total wall time {time.perf_counter() - started:.0f} s.")
    return 1 if false_total else 0


if __name__ == "__main__":
    sys.exit(main())

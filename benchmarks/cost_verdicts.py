"""How often do the chapter 5 and 6 gradings give the wrong verdict, and how much do the timing
ratios spread?

    python benchmarks/cost_verdicts.py [--runs 20] [--exercise ID ...] [--record FILE] [--cold]
    python benchmarks/cost_verdicts.py --report FILE

Grades each chapter 5/6 exercise's solution and starting file ``--runs`` times (seeds 0, 1, ...),
one grading at a time, with every check. The solution is graded as a learner's file is; the starter
with ``costly="always"``, so its timing checks run even though its structure already fails: the
table then shows whether the timing check alone would have passed it (it must not).

Per exercise it prints the false verdicts (a solution graded as failing; a starter graded as
passing; a starter whose timing check passed), the wall time per grading, and per timing check the
min / median / max of the measured ratio for each side next to the threshold. ``--record`` appends
one JSON line per grading, so runs can be split over several sittings (``--first-seed``) and
summed with ``--report``. Gradings are warm (forked from a process with torch imported, as in
``watch``, notebook checks and batches) unless ``--cold``.

A benchmark, not a test: the numbers depend on the machine and its load. docs/MEASUREMENTS.md
records what it printed on the course's 2-core reference machine.
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

from autograder import discover

from autograder import grade  # noqa: E402
from autograder.format.exercise import COSTLY_KINDS  # noqa: E402

CHAPTERS = ("05_compile_time", "06_guard_overhead")
# Kinds whose grading records a timing ratio: the costly kinds, and warm_start, which times its two
# start-ups in every grading (checks/caches.py) because its cache hits decide structure-only runs too.
TIMED_KINDS = COSTLY_KINDS | {"warm_start"}


def grade_once(exercise, side: str, seed: int, warm: bool) -> dict:
    path = exercise.master if side == "solution" else exercise.starter
    started = time.perf_counter()
    result = grade(exercise.id, path, seed=seed, warm=warm, costly=True if side == "solution" else "always")
    seconds = time.perf_counter() - started
    timings = (result.measurements or {}).get("timings", {})
    timed = {c.name: {"ratio": (timings.get(c.name) or {}).get("ratio"), "status": c.status,
                      "needs": next(s.params.get("min_ratio") for s in exercise.checks if s.name == c.name)}
             for c in result.checks if c.kind in TIMED_KINDS}
    return {"exercise": exercise.id, "side": side, "seed": seed, "passed": result.passed, "seconds": round(seconds, 2),
            "timed": timed, "load": round(os.getloadavg()[0], 2),
            "failed": [f"{c.name}: {c.message}" for c in result.failed_checks()] if side == "solution" else []}


def spread(values) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def report(records: list[dict]) -> tuple[str, int]:
    by_exercise = defaultdict(list)
    for record in records:
        by_exercise[record["exercise"]].append(record)
    lines = ["| exercise | runs | false fails (solution) | false passes (starter) | starter timing passed | "
             "s per grading (solution / starter, median) | timing ratio min / median / max |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    false_total = 0
    for exercise_id, rows in by_exercise.items():
        solutions = [r for r in rows if r["side"] == "solution"]
        starters = [r for r in rows if r["side"] == "starter"]
        false_fails = sum(not r["passed"] for r in solutions)
        false_passes = sum(r["passed"] for r in starters)
        names = sorted({name for r in rows for name in r["timed"]})
        timing_passes = sum(any(r["timed"][n]["status"] == "passed" for n in r["timed"]) for r in starters)
        false_total += false_fails + false_passes + timing_passes
        timing = "; ".join(
            f"{n} (needs {next(r['timed'][n]['needs'] for r in rows if n in r['timed'])}x): "
            f"solution {spread(r['timed'][n]['ratio'] for r in solutions if n in r['timed'])}, "
            f"starter {spread(r['timed'][n]['ratio'] for r in starters if n in r['timed'])}" for n in names) or "no timing check"
        runs = max(len(solutions), len(starters))
        timing_cell = f"{timing_passes}/{len(starters)}" if names else "-"
        lines.append(f"| {exercise_id} | {runs} | {false_fails}/{len(solutions)} | {false_passes}/{len(starters)} | {timing_cell} | "
                     f"{statistics.median(r['seconds'] for r in solutions):.1f} / {statistics.median(r['seconds'] for r in starters):.1f} | "
                     f"{timing} |")
    loads = [r["load"] for r in records]
    lines.append("")
    lines.append(f"{len(records)} gradings; 1-minute load average during them: min {min(loads):.1f}, "
                 f"median {statistics.median(loads):.1f}, max {max(loads):.1f}.")
    return "\n".join(lines), false_total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--exercise", nargs="*", help="exercise ids (default: every chapter 5/6 exercise)")
    parser.add_argument("--record", type=Path, help="append one JSON line per grading to this file")
    parser.add_argument("--report", type=Path, help="only print the table for the gradings recorded in this file")
    parser.add_argument("--cold", action="store_true", help="a fresh interpreter per grading instead of a warm fork")
    args = parser.parse_args(argv)
    if args.report:
        table, false_total = report([json.loads(line) for line in args.report.read_text().splitlines() if line.strip()])
        print(table)
        return 1 if false_total else 0
    exercises = [e for e in discover() if e.chapter in CHAPTERS and (not args.exercise or e.id in args.exercise)]
    records = []
    started = time.perf_counter()
    for run in range(args.runs):
        seed = args.first_seed + run
        for exercise in exercises:
            for side in ("solution", "starter"):
                record = grade_once(exercise, side, seed, warm=not args.cold)
                records.append(record)
                if args.record:
                    with args.record.open("a") as stream:
                        stream.write(json.dumps(record) + "\n")
                if side == "solution" and not record["passed"]:
                    print(f"FALSE FAIL {exercise.id} seed {seed}: {record['failed']}", file=sys.stderr, flush=True)
        print(f"run {run + 1}/{args.runs} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    table, false_total = report(records)
    print(table)
    print(f"Total wall time {time.perf_counter() - started:.0f} s.")
    return 1 if false_total else 0


if __name__ == "__main__":
    sys.exit(main())

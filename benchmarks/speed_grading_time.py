"""How long a speed-graded grading takes, against issue 22's targets (<= 20 s cold, <= 8 s warm on
the course's 2-core machine).

    python benchmarks/speed_grading_time.py [--exercises ID ...] [--warm-runs 2]

For each exercise with a speed check, its solution graded with every check, through the real
``grade()``:

- cold: a fresh interpreter per grading (``warm=False``, what ``python -m autograder grade`` does):
  torch imported, the CPU checked and the shared header found by that grading's judge;
- warm: forked from the warm worker (``warm=True``, what ``watch``, notebook checks and batches
  do), after one grading of the same file that warmed the worker (not counted).

Every grading compiles with Inductor from an empty cache of its own (a shared, writable cache would
let a submission plant compiled code for later gradings): "cold" and "warm" are the grader's
process, not Inductor's cache. ``AUTOGRADER_KERNEL_HEADERS=0`` in the environment measures without
the shared precompiled header. Prints one row per exercise and the medians; the phases come from
the result (``extra.phases_s``). A benchmark, not a test: the load average is printed with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import discover, grade  # noqa: E402


def _one(exercise, warm: bool, seed: int) -> tuple[float, dict, str]:
    started = time.perf_counter()
    result = grade(exercise.id, exercise.master, seed=seed, warm=warm, costly=True)
    return time.perf_counter() - started, (result.extra or {}).get("phases_s", {}), result.status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="*")
    parser.add_argument("--warm-runs", type=int, default=2)
    args = parser.parse_args(argv)
    exercises = [e for e in discover() if any(c.kind == "speed" for c in e.checks) and (not args.exercises or e.id in args.exercises)]
    headers = os.environ.get("AUTOGRADER_KERNEL_HEADERS", "1")
    print(f"shared precompiled header: {'off' if headers == '0' else 'on'}; load average {os.getloadavg()[0]:.1f} at the start")
    print("| exercise | cold (s) | warm (s) | warm: learner's timed part (s) | status |")
    print("| --- | --- | --- | --- | --- |")
    colds, warms = [], []
    for exercise in exercises:
        cold, _, cold_status = _one(exercise, False, 1)
        _one(exercise, True, 1)  # the worker's first grading of this exercise: imports, the learned modules
        runs = [_one(exercise, True, 2 + n) for n in range(args.warm_runs)]
        warm = statistics.median(seconds for seconds, _, _ in runs)
        costly = statistics.median(phases.get("learner_costly", 0.0) for _, phases, _ in runs)
        statuses = {cold_status, *(status for _, _, status in runs)}
        colds.append(cold)
        warms.append(warm)
        print(f"| {exercise.id} | {cold:.1f} | {warm:.1f} | {costly:.1f} | {', '.join(sorted(statuses))} |", flush=True)
    print(f"\nmedian cold {statistics.median(colds):.1f} s (max {max(colds):.1f}), median warm {statistics.median(warms):.1f} s "
          f"(max {max(warms):.1f}); load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())

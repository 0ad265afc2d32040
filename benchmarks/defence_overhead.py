"""What the static policy and the audit hook cost: a warm structure check with and without them.

    python benchmarks/defence_overhead.py [--runs 15] [--exercise breaks_checkpoint]

Grades the exercise's reference solution warm (``grade(warm=True, costly=False)``), alternating
runs with both defences on and with both off (``grader.DEFENCES``), so that the machine's load
falls on both alike; prints the median and the spread of each, and the policy's own time per file
over every master and starting file. A benchmark, not a test: record what it printed, with the
load average, in docs/MEASUREMENTS.md.
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
os.environ.setdefault("AUTOGRADER_PREIMPORT", "first")

from autograder.engine import grader  # noqa: E402
from autograder.format import policy  # noqa: E402
from autograder.format.exercise import discover, load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--exercise", default="breaks_checkpoint")
    args = parser.parse_args()
    exercise = load(args.exercise)

    def once(defended: bool) -> float:
        grader.DEFENCES.update(policy=defended, audit=defended)
        started = time.perf_counter()
        result = grader.grade(exercise.id, exercise.master, seed=5, warm=True, costly=False)
        elapsed = time.perf_counter() - started
        assert result.passed, result.message
        return elapsed

    once(True), once(False)  # the worker's first gradings import what compiling imports
    times = {True: [], False: []}
    for _ in range(args.runs):
        for defended in (True, False):
            times[defended].append(once(defended))
    grader.DEFENCES.update(policy=True, audit=True)
    for defended, label in ((True, "policy + audit hook"), (False, "neither")):
        values = sorted(times[defended])
        print(f"{label:>20}: median {statistics.median(values) * 1000:.0f} ms "
              f"(min {values[0] * 1000:.0f}, max {values[-1] * 1000:.0f}, {len(values)} runs)")

    texts = [(e, path.read_text(encoding="utf-8")) for e in discover() for path in (e.master, e.starter)]
    started = time.perf_counter()
    for e, text in texts:
        policy.check(text, e)
    print(f"policy.check: {(time.perf_counter() - started) / len(texts) * 1000:.1f} ms per file over {len(texts)} files")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

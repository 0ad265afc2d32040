"""Median wall time of one `grade` call (fresh child process, torch import included).

    python benchmarks/grade_latency.py [--runs 7] [--exercise breaks_checkpoint]

Reports the library call (`grade()`, cold: a fresh interpreter per grading), the same call forked
from the warm worker (`warm=True`, what watch, notebook checks and batches use), and the command
line (`python -m autograder grade --json`), each on the reference solution and on the starter. A benchmark, not a test: numbers vary
with the machine; the README records what it printed on the course's 2-core reference machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Steady state: the warm worker imports what compiling imports before its first grading (zygote.py).
os.environ.setdefault("AUTOGRADER_PREIMPORT", "first")

from autograder import grade

from autograder import load  # noqa: E402


def timed(fn, runs: int) -> list[float]:
    fn()  # warm the OS file cache and Python bytecode caches: "warm" means not the very first run
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--exercise", default="breaks_checkpoint")
    args = parser.parse_args()
    exercise = load(args.exercise)
    rows = []
    for label, path in (("solution", exercise.master), ("starter", exercise.starter)):
        rows.append((f"grade() on the {label}", timed(lambda: grade(exercise.id, path, seed=1, warm=False), args.runs)))
        rows.append((f"grade(warm=True) on the {label}", timed(lambda: grade(exercise.id, path, seed=1, warm=True), args.runs)))
        cli = [sys.executable, "-m", "autograder", "grade", exercise.id, str(path), "--json", "--seed", "1"]
        rows.append((f"CLI grade --json on the {label}", timed(lambda: subprocess.run(cli, cwd=ROOT, capture_output=True), args.runs)))
    print(f"exercise {exercise.id}, {args.runs} warm runs each")
    print(f"{'what':<34} {'median s':>9} {'min s':>7} {'max s':>7}")
    for label, times in rows:
        print(f"{label:<34} {statistics.median(times):>9.2f} {min(times):>7.2f} {max(times):>7.2f}")


if __name__ == "__main__":
    main()

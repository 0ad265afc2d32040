"""Grade the whole course (every solution and every starting file) and report the wall time.

    python benchmarks/course_throughput.py [--workers 1 2] [--cold]

Structure checks only run in the usual way; exercises with Inductor-based checks are reported
separately (their cost is the compile, not the grading). Also reports the peak memory of one
cold grading (the largest child's maximum resident set size).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import discover, grade  # noqa: E402
from autograder import zygote  # noqa: E402


def uses_inductor(exercise) -> bool:
    return exercise.compile.get("backend") == "inductor" or any(
        c.kind == "speed" and c.params.get("backend", "inductor") == "inductor" for c in exercise.checks)


def run(jobs, workers: int, warm: bool) -> float:
    if warm:
        zygote._shared = zygote.WarmPool(workers)
        zygote._shared.start()  # outside the timed part, as in a long-lived front end
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: grade(job[0], job[1], seed=1, warm=warm), jobs))
    elapsed = time.perf_counter() - started
    wrong = [r.exercise for r, job in zip(results, jobs) if r.passed != (job[2] == "solution")]
    if wrong:
        print(f"  unexpected verdicts: {wrong}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cold", action="store_true", help="also time cold gradings (a fresh interpreter each)")
    args = parser.parse_args()
    exercises = discover()
    structure = [e for e in exercises if not uses_inductor(e)]
    heavy = [e for e in exercises if uses_inductor(e)]
    jobs = [(e.id, e.master, "solution") for e in structure] + [(e.id, e.starter, "starter") for e in structure]
    print(f"{len(structure)} structure-only exercises ({len(jobs)} gradings); {len(heavy)} with Inductor checks")
    for workers in args.workers:
        print(f"  warm, {workers} worker(s): {run(jobs, workers, warm=True):.1f} s")
        if args.cold:
            print(f"  cold, {workers} worker(s): {run(jobs, workers, warm=False):.1f} s")
    if heavy:
        heavy_jobs = [(e.id, e.master, "solution") for e in heavy] + [(e.id, e.starter, "starter") for e in heavy]
        print(f"  Inductor exercises, warm, 1 worker: {run(heavy_jobs, 1, warm=True):.1f} s")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    grade(structure[0].id, structure[0].master, seed=1, warm=False)
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"peak memory of one cold grading: {peak / 1024:.0f} MiB (max RSS of the largest child)")


if __name__ == "__main__":
    main()

"""Grade the whole course (every solution and every starting file) and report wall time and memory.

    python benchmarks/course_throughput.py [--workers 1 2] [--cold] [--timed] [--exercises-from FILE]

- Structure checks of every exercise (``costly=False``), warm (forked from a process with torch
  imported), with 1 and 2 workers; ``--cold`` also times a fresh interpreter per grading. The warm
  workers start before the clock, as in a long-lived front end; they import the modules torch
  imports on its first compile from the names an earlier worker learned (``engine.kept``), or
  learn them beside the first gradings where none are kept (the first run after the course's code
  or torch changed, or with ``--forget-modules``, which removes the kept names first). The output
  says which.
- ``--timed``: the timing checks' extra cost, from grading the solutions of the exercises that have
  one with every check (warm, 1 worker).
- Memory: the peak resident set of one grading child, and the peak of the whole process tree
  (this process, the warm workers and every grading child) sampled every 50 ms while the class
  is graded with the most workers.

- ``--exercises-from FILE``: only the exercises whose ids FILE lists (one a line, ``#`` comments),
  say ``benchmarks/course_2026-12-01.txt``, the 59 exercises issue 17 counted (118 files), to compare
  the engine on the course it was measured on before the course grew.

Every grading's verdict is compared with the expected one (solution passes, starter fails).
A benchmark, not a test; docs/MEASUREMENTS.md records what it printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import discover

from autograder import grade  # noqa: E402
from autograder.engine import kept, zygote  # noqa: E402
from autograder.classroom.batch import _descendants  # noqa: E402
from autograder.format.exercise import COSTLY_KINDS  # noqa: E402


def tree_rss_mib(root_pid: int) -> float:
    """Resident memory of ``root_pid`` and all its descendants (Linux /proc), MiB."""
    total = 0
    for pid in [root_pid, *_descendants(root_pid)]:
        try:
            with open(f"/proc/{pid}/statm") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue  # gone since the walk
    return total / 2**20


class PeakSampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.stop = 0.0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, tree_rss_mib(os.getpid()))
            self.stop.wait(0.05)


def run(jobs, workers: int, warm: bool, costly=False) -> tuple[float, list[str]]:
    if warm:
        if zygote._shared is not None:
            zygote._shared.close()
        kept_names = kept.learned_modules() is not None
        started = time.perf_counter()
        zygote._shared = zygote.WarmPool(workers)
        zygote._shared.start()  # outside the timed part, as in a long-lived front end
        print(f"  {workers} warm worker(s) started in {time.perf_counter() - started:.1f} s, "
              + ("importing the module names kept from an earlier worker" if kept_names else
                 "nothing kept: they learn the modules torch imports on its first compile beside the first gradings"))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda job: grade(job[0], job[1], seed=1, warm=warm, costly=costly), jobs))
    elapsed = time.perf_counter() - started
    wrong = [f"{job[0]} ({job[2]}: {r.status})" for r, job in zip(results, jobs) if r.passed != (job[2] == "solution")]
    return elapsed, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cold", action="store_true", help="also time cold gradings (a fresh interpreter each)")
    parser.add_argument("--timed", action="store_true", help="also grade the timing exercises' solutions with every check")
    parser.add_argument("--exercises-from", type=Path, help="grade only the exercise ids this file lists")
    parser.add_argument("--forget-modules", action="store_true",
                        help="remove the kept module names first: the workers learn them beside the first gradings")
    args = parser.parse_args()
    kept_names = kept._learned_modules_path()
    if args.forget_modules and kept_names:
        Path(kept_names).unlink(missing_ok=True)
    exercises = discover()
    if args.exercises_from:
        wanted = [line.split("#")[0].strip() for line in args.exercises_from.read_text().splitlines()]
        wanted = [name for name in wanted if name]
        unknown = sorted(set(wanted) - {e.id for e in exercises})
        if unknown:
            parser.error(f"{args.exercises_from} names exercises the course does not have: {', '.join(unknown)}")
        exercises = [e for e in exercises if e.id in set(wanted)]
    jobs = [(e.id, e.master, "solution") for e in exercises] + [(e.id, e.starter, "starter") for e in exercises]
    print(f"{len(exercises)} exercises, {len(jobs)} gradings (structure checks), {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    sampler = None
    for workers in args.workers:
        if workers == max(args.workers):
            sampler = PeakSampler()
            sampler.start()
        elapsed, wrong = run(jobs, workers, warm=True)
        if sampler:
            sampler.stop.set()
        print(f"  warm, {workers} worker(s): {elapsed:.1f} s ({elapsed / len(jobs):.2f} s per grading)"
              + (f"; UNEXPECTED VERDICTS: {wrong}" if wrong else "; every verdict as expected"))
        if args.cold:
            elapsed, wrong = run(jobs, workers, warm=False)
            print(f"  cold, {workers} worker(s): {elapsed:.1f} s ({elapsed / len(jobs):.2f} s per grading)"
                  + (f"; UNEXPECTED VERDICTS: {wrong}" if wrong else ""))
    if sampler:
        print(f"peak memory of the whole process tree while grading with {max(args.workers)} workers: {sampler.peak:.0f} MiB")
    if args.timed:
        timed = [(e.id, e.master, "solution") for e in exercises if any(c.kind in COSTLY_KINDS for c in e.checks)]
        elapsed, wrong = run(timed, 1, warm=True, costly=True)
        print(f"  timing checks: {len(timed)} solutions with every check, warm, 1 worker: {elapsed:.1f} s"
              + (f"; UNEXPECTED VERDICTS: {wrong}" if wrong else ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    heaviest = max(exercises, key=lambda e: len(e.checks))
    grade(heaviest.id, heaviest.master, seed=1, warm=False)
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"peak memory of one grading child: {peak / 1024:.0f} MiB (largest max RSS of any child process of this run)")


if __name__ == "__main__":
    main()

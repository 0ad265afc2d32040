"""How often do the timing checks of chapters 5 and 6 give the wrong verdict, and how much do their
ratios spread?

    python benchmarks/cost_verdicts.py [--runs 20] [--exercise regional_blocks ...]

Grades each chapter 5/6 exercise's solution and starter ``--runs`` times with every check (timing
checks included; cold ``grade()`` calls, one at a time, seeds 0..runs-1) and prints, per exercise:
the false verdicts (a solution graded as failing, a starter graded as passing), the wall time per
grading, and per timing check the min / median / max of its ratio for solution and starter next to
its threshold. A benchmark, not a test: the numbers depend on the machine and its load;
docs/MEASUREMENTS.md records what it printed on the course's 2-core reference machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import discover, grade  # noqa: E402
from autograder.exercise import COSTLY_KINDS  # noqa: E402

CHAPTERS = ("05_compile_time", "06_guard_overhead")


def spread(values) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--exercise", nargs="*", help="exercise ids (default: every chapter 5/6 exercise)")
    args = parser.parse_args(argv)
    exercises = [e for e in discover() if e.chapter in CHAPTERS and (not args.exercise or e.id in args.exercise)]
    rows = []
    for exercise in exercises:
        timed = [c for c in exercise.checks if c.kind in COSTLY_KINDS]
        false, seconds = {"solution": 0, "starter": 0}, {"solution": [], "starter": []}
        ratios = {(c.name, kind): [] for c in timed for kind in ("solution", "starter")}
        for run in range(args.runs):
            for kind, path in (("solution", exercise.master), ("starter", exercise.starter)):
                started = time.perf_counter()
                result = grade(exercise.id, path, seed=run)
                seconds[kind].append(time.perf_counter() - started)
                false[kind] += result.passed != (kind == "solution")
                for check in timed:
                    ratio = ((result.measurements or {}).get("timings", {}).get(check.name) or {}).get("ratio")
                    if ratio is not None:
                        ratios[(check.name, kind)].append(ratio)
            print(f"{exercise.id}: run {run + 1}/{args.runs} done", file=sys.stderr, flush=True)
        timing = "; ".join(f"{c.name} (needs {c.params.get('min_ratio')}x): solution {spread(ratios[(c.name, 'solution')])}, "
                           f"starter {spread(ratios[(c.name, 'starter')])}" for c in timed) or "no timing check"
        rows.append((exercise.id, false["solution"], false["starter"], statistics.median(seconds["solution"]),
                     statistics.median(seconds["starter"]), timing))
    print(f"| exercise | false fails (solution) | false passes (starter) | s per grading (solution / starter, median) | "
          f"timing ratio min / median / max |")
    print("| --- | --- | --- | --- | --- |")
    for ex_id, bad_solution, bad_starter, t_solution, t_starter, timing in rows:
        print(f"| {ex_id} | {bad_solution}/{args.runs} | {bad_starter}/{args.runs} | {t_solution:.1f} / {t_starter:.1f} | {timing} |")
    return 1 if any(r[1] or r[2] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

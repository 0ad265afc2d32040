"""What a grading with an Inductor-based check costs, with a cold and a warm compile cache.

    python benchmarks/inductor_cost.py [--runs 3]

No course exercise is graded with Inductor (their structure checks use the counting backend, the
timing checks of chapters 5 and 6 the eager and aot_eager backends); the ``speed`` check kind
compiles with Inductor. This grades the speed check's test fixture (tests/test_speed_check.py: a
pointwise chain of 1e6 elements, Inductor against eager, 9 repeats) ``--runs`` times in a row, cold
(a fresh interpreter per grading) and warm (forked from a warm worker), all sharing one new
``TORCHINDUCTOR_CACHE_DIR``: the first grading compiles the C++ kernel (cold cache), the later ones
find it in Inductor's caches (warm cache). A benchmark, not a test; docs/MEASUREMENTS.md records
what it printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import autograder.format.exercise as exercise_format  # noqa: E402
from autograder import grade  # noqa: E402
from test_speed_check import MASTER  # noqa: E402 - the fixture the speed check's tests grade


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    for warm in (False, True):
        with tempfile.TemporaryDirectory() as home:
            folder = Path(home) / "solutions" / "05_speed"
            folder.mkdir(parents=True)
            master = folder / "speed_fixture.py"
            master.write_text(MASTER.format(cpu=1.3, backend="inductor", needs="[]"))
            exercise_format.SOLUTIONS = Path(home) / "solutions"
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(Path(home) / "inductor-cache")
            for run in range(args.runs):
                started = time.perf_counter()
                result = grade("speed_fixture", master, seed=1, warm=warm, timeout=300)
                seconds = time.perf_counter() - started
                fast = next(c for c in result.checks if c.name == "fast")
                ratio = result.measurements.get("timings", {}).get("fast", {}).get("ratio")
                cache = "cold cache" if run == 0 else "warm cache"
                print(f"  {'warm worker' if warm else 'fresh interpreter'}, {cache}: {seconds:.1f} s per grading; "
                      f"speed check {fast.status}" + (f", Inductor {ratio:.2f}x faster than eager" if ratio else ""))


if __name__ == "__main__":
    main()

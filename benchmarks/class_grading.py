"""Time a chapter-1 class through the real nbgrader CLI: ``nbgrader grade`` for N notebooks, and
``nbgrader validate`` of the instructor's source notebook and of one learner's notebook.

    python benchmarks/class_grading.py [--students 30] [--workers 2] [--hang]

The class: a third of the students fixed every exercise, a third submitted the released notebook
unchanged, a third fixed half; ``--hang`` makes one student's answer loop forever at import (it
costs that exercise's time limit on one worker, not nbgrader's cell timeout). Every score in
grades.csv is compared with what the student's answers should earn. Prints the load average
before and after (the machine is shared: measure when it is quiet). A benchmark, not a test;
docs/MEASUREMENTS.md records what it printed.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.classroom import nbgrader_bridge as bridge  # noqa: E402
from autograder.format.exercise import load  # noqa: E402

ASSIGNMENT = "01_dynamo_core"


def run(command, cwd, env, timeout=1800) -> float:
    started = time.monotonic()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 and "validate" not in command:
        raise SystemExit(f"{' '.join(map(str, command))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hang", action="store_true", help="one student's answer loops forever")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="class-grading-"))
    course = tmp / "course"
    env = bridge.nbgrader_environment({k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"})
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "jupyter"), IPYTHONDIR=str(tmp / "ipython"))
    print(f"load average before: {os.getloadavg()}")
    run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(course)], ROOT, env)
    manifest = bridge.read_manifest(course)
    entry = manifest["assignments"][ASSIGNMENT]
    ids = [item["id"] for item in entry["exercises"]]
    points = {item["id"]: item["points"] for item in entry["exercises"]}
    run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT], course, env)
    release = json.loads((course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    expected = {}
    for n in range(args.students):
        nb = copy.deepcopy(release)
        kind = n % 3
        fixed = ids if kind == 0 else [] if kind == 1 else ids[::2]
        for cell in nb["cells"]:
            grade_id = (cell["metadata"].get("nbgrader") or {}).get("grade_id", "")
            if grade_id.startswith("answer_") and grade_id[7:] in fixed:
                cell["source"] = bridge.ANSWER_LINE.format(id=grade_id[7:]) + "\n" + bridge.solution_code(load(grade_id[7:]))
        expected[f"s{n:02d}"] = set(fixed)
        if args.hang and n == 1:
            cell = next(c for c in nb["cells"] if (c["metadata"].get("nbgrader") or {}).get("grade_id") == f"answer_{ids[0]}")
            cell["source"] += "\nwhile True:\n    pass\n"
        folder = course / "submitted" / f"s{n:02d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(nb))
    started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "grade", ASSIGNMENT, "--course", str(course),
                           "--workers", str(args.workers)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"CPU time of nbgrader grade and every process it started: {cpu:.1f} s "
          f"({cpu / os.cpu_count():.1f} s of wall time on {os.cpu_count()} idle cores at best)")
    print("\n".join(line for line in proc.stderr.splitlines() if line.startswith(("pre-graded", "nbgrader "))))
    wrong = {}
    for student, fixed in expected.items():  # a fixed answer earns its points; an unfixed one does not (partial credit is fine)
        record = json.loads((course / "autograder_results" / ASSIGNMENT / f"{student}.json").read_text())
        for item in record["exercises"]:
            if (item["earned"] == item["points"]) != (item["id"] in fixed):
                wrong.setdefault(student, []).append((item["id"], item["earned"], item["points"]))
    print(f"nbgrader grade, {args.students} notebooks x {len(ids)} exercises, {args.workers} workers: {seconds:.1f} s"
          f"{' (one answer hangs)' if args.hang else ''}; scores as expected: {not wrong} {wrong or ''}")
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    print(f"nbgrader validate, source notebook ({len(ids)} exercises): "
          f"{run([sys.executable, '-m', 'nbgrader', 'validate', str(source)], course, env):.1f} s")
    learner = course / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    print(f"nbgrader validate, a learner's notebook: {run([sys.executable, '-m', 'nbgrader', 'validate', str(learner)], course, env):.1f} s")
    print(f"load average after: {os.getloadavg()}")
    print(f"(course left in {tmp})")
    return 0 if not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main())

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# In-process grade() calls fork from one warm worker (torch imported once): each grading is still
# a fresh child. tests/test_warm_worker.py proves it gives the cold path's verdicts and leaks
# nothing; the command-line tests below run the cold path, as users do.
os.environ["AUTOGRADER_WARM"] = "1"


def run_cli(*args, timeout=300):
    """Run ``python -m autograder ARGS`` the way a user or a tool does; returns (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
    proc = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def grade_json(exercise_id, path, *extra):
    code, out, err = run_cli("grade", exercise_id, path, "--json", "--seed", "7", *extra)
    assert out.count("\n") <= 1, f"grade --json must print exactly one JSON line, got:\n{out}\n{err}"
    return code, json.loads(out)


@pytest.fixture
def submission(tmp_path):
    """Write a submission file from text and return its path."""
    def write(text, name="submission.py", encoding="utf-8"):
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding=encoding)
        return path
    return write


_GRADED = {}


@pytest.fixture(scope="session")
def graded():
    """grade() of an exercise's starter or master, cached for the whole session (seed 11)."""
    from autograder.authoring import dev
    from autograder.format.exercise import load
    from autograder.engine.grader import grade

    def get(exercise_id, side):
        key = (exercise_id, side)
        if key not in _GRADED:
            exercise = load(exercise_id)
            # The starter's declared reasons include a structural check (the format requires it), so a
            # structure-only run proves it fails; the solution runs every check, timings included.
            _GRADED[key] = grade(exercise_id, exercise.starter if side == "starter" else exercise.master, seed=11,
                                 costly=side != "starter")
            if side == "master" and dev.failed_only_on_timing(_GRADED[key]):
                # As `dev check` does: a solution failed by a timing alone is graded once more (the
                # load of this test run, not the code, decides a timing now and then).
                _GRADED[key] = grade(exercise_id, exercise.master, seed=11)
        return _GRADED[key]
    return get


def pytest_collection_modifyitems(items):
    """Tests that share a module-scoped fixture (a whole nbgrader class graded, a course started,
    a hub) share an xdist worker too (`--dist loadgroup`), so the fixture is built once, not once
    per worker that happens to run one of them."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        shared = sorted(name for name, defs in info.name2fixturedefs.items() if defs and defs[-1].scope == "module")
        if shared:
            item.add_marker(pytest.mark.xdist_group(f"{item.module.__name__}:{shared[0]}"))

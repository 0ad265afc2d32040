"""Every starting file runs as a script, as the learner first runs it (`python exercises/NN/ID.py`).

Its demo must finish and either print what it shows, or fail inside torch: many starters end on the
very error the exercise is about (a graph break under fullgraph=True, an opcheck failure). A failure
raised from the file's own code (a NameError, an ImportError, a typo) is a broken course.

The files of one chapter run in one interpreter, each from a clean Dynamo state, to keep this
cheap; the lessons' run cells (stubbed in tests/test_lessons.py) show the same output.
"""

import json
import subprocess
import sys

import pytest

from autograder.format.exercise import discover
from conftest import ROOT

HARNESS = r"""
import contextlib, io, json, os, runpy, sys, traceback
import torch, torch._dynamo

saved = torch._dynamo.config.save_config()
torch_dir = os.path.dirname(torch.__file__)
report = {}
for path in sys.argv[1:]:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            runpy.run_path(path, run_name="__main__")
        outcome = {"raised": None}
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        outcome = {"raised": f"{type(exc).__name__}: {str(exc)[:200]}",
                   "inside_torch": bool(frames) and frames[-1].filename.startswith(torch_dir)}
    finally:
        torch._dynamo.reset()
        torch._dynamo.config.load_config(saved)
        torch.compiler.set_stance("default")
    report[path] = {**outcome, "printed": len(printed.getvalue())}
print(json.dumps(report))
"""

CHAPTERS = sorted({e.chapter for e in discover()})


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_starting_file_runs_as_a_script_and_fails_only_inside_torch(chapter, tmp_path):
    starters = [str(e.starter) for e in discover() if e.chapter == chapter]
    proc = subprocess.run([sys.executable, "-c", HARNESS, *starters], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    broken = [f"{path}: {run['raised']}" for path, run in report.items() if run["raised"] and not run["inside_torch"]]
    silent = [path for path, run in report.items() if not run["raised"] and run["printed"] == 0]
    assert not broken, f"a demo fails in its own code: {broken}"
    assert not silent, f"a demo shows nothing: {silent}"

"""The static scan and the submission loader (both run before any submission code)."""

import json
import random

import pytest

from autograder.grader import grade
from autograder.loader import load_submission, notebook_source
from autograder.scan import scan
from conftest import ROOT

SOLUTION = (ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py").read_text()


@pytest.mark.parametrize("code, rule", [
    ("import ctypes", "ctypes"), ("import gc\ngc.get_objects()", "gc"), ("import subprocess", "subprocess"),
    ("import os\nos._exit(0)", "os._exit"), ("from os import kill", "os.kill"), ("import sys\nsys.modules['x'] = 1", "sys.modules"),
    ("import atexit", "atexit"), ("import threading", "threading"), ("import socket", "socket"),
    ("open('/proc/self/mem')", "/proc"), ("exec('x=1')", "exec"), ("__import__('os')", "__import__"),
    ("import torch\ntorch.compile = lambda f, **k: f", "patching"), ("import autograder.checks as c\nc.compare = None", ""),
    ("import torch\nsetattr(torch, 'compile', None)", "patching"), ("import builtins\nbuiltins.print = None", "patching"),
])
def test_scan_flags_what_no_fix_needs(code, rule):
    findings = scan(code)
    if rule:
        assert rule in [f.rule for f in findings], findings
    assert findings, "expected at least one finding"


def test_scan_leaves_every_reference_solution_and_starter_alone():
    for path in sorted((ROOT / "solutions").rglob("*.py")) + sorted((ROOT / "exercises").rglob("*.py")):
        assert scan(path.read_text()) == [], path


def test_scan_allows_config_changes_and_per_exercise_rules():
    assert scan("import torch._dynamo\ntorch._dynamo.config.recompile_limit = 3\n") == []
    assert scan("import threading", allow=["threading"]) == []


def test_a_flagged_submission_fails_even_if_it_would_pass(submission):
    result = grade("breaks_checkpoint", submission(SOLUTION + "\nimport gc\n"), seed=2)
    assert result.status == "failed" and result.score == 0
    assert "line" in result.message and "gc" in result.message and result.extra["scan"]


def test_a_notebook_submission_grades_like_its_code(tmp_path):
    cells = [{"cell_type": "markdown", "source": "# task"},
             {"cell_type": "code", "source": "%matplotlib inline\n" + SOLUTION, "metadata": {}, "outputs": []}]
    path = tmp_path / "answer.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert grade("breaks_checkpoint", path, seed=2).passed


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"cells": 3}', '{"cells": [{"cell_type": "code", "source": "def ("}]}'])
def test_a_broken_notebook_is_a_clear_error(tmp_path, text):
    path = tmp_path / "answer.ipynb"
    path.write_text(text)
    result = grade("breaks_checkpoint", path, seed=2)
    assert result.status == "error" and "notebook" in result.message


def test_notebook_magics_become_comments():
    source = notebook_source(json.dumps({"cells": [{"cell_type": "code", "source": ["!pip install x\n", "y = 1"]}]}))
    assert "# (notebook magic) !pip install x" in source and "y = 1" in source


def test_loader_fuzz_never_raises(tmp_path):
    """Random bytes, truncated files and mangled notebooks: always a Loaded, never an exception."""
    rng = random.Random(1234)
    seeds = [SOLUTION.encode(), json.dumps({"cells": [{"cell_type": "code", "source": SOLUTION}]}).encode()]
    for number in range(400):
        base = rng.choice(seeds)
        kind = number % 4
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif kind == 1:
            data = base[: rng.randrange(len(base))]
        elif kind == 2:
            data = bytearray(base)
            for _ in range(rng.randrange(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            data = bytes(data)
        else:
            data = base.replace(b"(", b"((" * rng.randrange(1, 200), 1)
        path = tmp_path / ("f.ipynb" if number % 2 else "f.py")
        path.write_bytes(data)
        loaded = load_submission(path)
        assert (loaded.source is None) == bool(loaded.problem)

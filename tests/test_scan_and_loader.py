"""The static scan and the submission loader (both run before any submission code)."""

import json
import random

import pytest

from autograder.engine.grader import grade
from autograder.format.loader import load_submission, notebook_source
from autograder.format.scan import scan
from conftest import ROOT

SOLUTION = (ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py").read_text()


@pytest.mark.parametrize("code, rule", [
    ("import ctypes", "ctypes"), ("import gc\ngc.get_objects()", "gc"), ("import subprocess", "subprocess"),
    ("import os\nos._exit(0)", "os._exit"), ("from os import kill", "os.kill"), ("import sys\nsys.modules['x'] = 1", "sys.modules"),
    ("import atexit", "atexit"), ("import threading", "threading"), ("import socket", "socket"),
    ("open('/proc/self/mem')", "/proc"), ("exec('x=1')", "exec"), ("__import__('os')", "__import__"),
    ("import torch\ntorch.compile = lambda f, **k: f", "patching"), ("import autograder.checks.core as c\nc.compare = None", ""),
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


# -- property tests (hypothesis): derandomized, so CI sees the same examples every run -----------------

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.format.loader import Loaded

_FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)
_cell = st.dictionaries(st.sampled_from(["cell_type", "source", "metadata", "outputs", "id"]),
                        st.sampled_from(["code", "markdown", "raw"]) | st.text(max_size=40) | st.lists(st.text(max_size=20), max_size=4)
                        | _json, max_size=5)
_notebook = st.fixed_dictionaries({"cells": st.lists(_cell | _json, max_size=5)},
                                  optional={"metadata": _json, "nbformat": st.integers(), "nbformat_minor": _json})


def _load(tmp_path, data: bytes, suffix: str) -> Loaded:
    path = tmp_path / f"answer{suffix}"
    path.write_bytes(data)
    loaded = load_submission(path)  # anything but a Loaded (an exception included) fails the property
    assert isinstance(loaded, Loaded)
    assert (loaded.source is None) == bool(loaded.problem)
    if loaded.source is None:
        assert len(loaded.problem) > 20 and loaded.problem.endswith((".", ")")), loaded.problem
    else:
        compile(loaded.source, "answer", "exec")  # what the loader accepts, the child can compile
    return loaded


@_FAST
@given(data=st.binary(max_size=400), suffix=st.sampled_from([".py", ".ipynb"]))
def test_property_arbitrary_bytes_load_cleanly(tmp_path, data, suffix):
    _load(tmp_path, data, suffix)


@_FAST
@given(text=st.text(max_size=300))
def test_property_arbitrary_text_as_python(tmp_path, text):
    _load(tmp_path, text.encode("utf-8", "surrogatepass"), ".py")


@_FAST
@given(value=_json)
def test_property_arbitrary_json_as_a_notebook(tmp_path, value):
    loaded = _load(tmp_path, json.dumps(value).encode(), ".ipynb")
    if not (isinstance(value, dict) and isinstance(value.get("cells"), list)):
        assert loaded.source is None and "notebook" in loaded.problem


@_FAST
@given(notebook=_notebook)
def test_property_notebook_shaped_json_with_broken_cells(tmp_path, notebook):
    _load(tmp_path, json.dumps(notebook).encode(), ".ipynb")


@_FAST
@given(prefix=st.binary(max_size=30), cut=st.integers(min_value=0, max_value=400))
def test_property_truncated_or_prefixed_notebooks(tmp_path, prefix, cut):
    whole = json.dumps({"cells": [{"cell_type": "code", "source": SOLUTION}], "metadata": {}}).encode()
    _load(tmp_path, prefix + whole[:cut], ".ipynb")


@settings(max_examples=3, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(min_size=1, max_size=60).filter(lambda b: b"\n" not in b), suffix=st.sampled_from([".py", ".ipynb"]))
def test_property_grading_garbage_is_a_failed_result(tmp_path, data, suffix):
    """A few examples through grade() itself (each costs a grading): a failed Result with a message."""
    path = tmp_path / f"answer{suffix}"
    path.write_bytes(b"\x00" + data if suffix == ".py" else data)
    result = grade("breaks_checkpoint", path, seed=2)
    assert not result.passed and result.score == 0 and result.message

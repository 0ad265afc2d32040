"""The Gradescope autograder zip, run the way Gradescope runs it against a simulated /autograder."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

from autograder.classroom import gradescope
from autograder.classroom.nbgrader_bridge import ANSWER_LINE, solution_code
from autograder.format.exercise import load

BC = "breaks_checkpoint"
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def assert_valid_results(data):
    """results.json per the Gradescope autograder specification."""
    assert isinstance(data["score"], (int, float)) and isinstance(data["tests"], list)
    assert isinstance(data.get("output", ""), str) and data.get("stdout_visibility", "hidden") in VISIBILITIES
    for test in data["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= set(test), test
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert 0 <= test["score"] <= test["max_score"] and test["visibility"] in VISIBILITIES
        assert test.get("status", "failed") in {"passed", "failed"}
    assert data["score"] == sum(t["score"] for t in data["tests"])
    json.dumps(data)  # plain JSON all the way down


def test_zip_layout_and_determinism(tmp_path):
    first = gradescope.build_zip(tmp_path / "a.zip", exercises=[BC], hide=[f"{BC}:correct"])
    second = gradescope.build_zip(tmp_path / "b.zip", exercises=[BC], hide=[f"{BC}:correct"])
    assert first.read_bytes() == second.read_bytes(), "the same course gives the same zip"
    with zipfile.ZipFile(first) as archive:
        names = set(archive.namelist())
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in archive.infolist()}
        assert {"setup.sh", "run_autograder", "requirements.txt", "course/gradescope.json", "course/pyproject.toml",
                "course/autograder/engine/grader.py", "course/autograder/sandbox/child.py", f"course/solutions/01_dynamo_core/{BC}.py"} <= names
        assert modes["setup.sh"] == modes["run_autograder"] == 0o755
        assert not [n for n in names if n.startswith("course/solutions/") and not n.endswith(f"/{BC}.py")], "only the chosen masters"
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        requirements = archive.read("requirements.txt").decode().split()
        assert "torch==2.13.0" in requirements, "setup installs the pinned torch from pyproject.toml"
        config = json.loads(archive.read("course/gradescope.json"))
        assert config["exercises"][0]["hidden"] == ["correct"]
        for script in ("setup.sh", "run_autograder"):
            path = tmp_path / script
            path.write_bytes(archive.read(script))
            assert subprocess.run(["bash", "-n", str(path)]).returncode == 0, f"{script} is valid bash"


@pytest.fixture(scope="module")
def autograder_dir(tmp_path_factory):
    """/autograder as Gradescope lays it out: source/ (the unzipped zip) and run_autograder."""
    root = tmp_path_factory.mktemp("gs") / "autograder"
    archive = gradescope.build_zip(root.parent / "autograder.zip", exercises=[BC], hide=[f"{BC}:correct"])
    with zipfile.ZipFile(archive) as handle:
        handle.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    os.chmod(root / "run_autograder", 0o755)
    return root


def run_autograder(root, files, defences_off=""):
    """One Gradescope run: a fresh submission/ and results/, then run_autograder."""
    for name in ("submission", "results"):
        shutil.rmtree(root / name, ignore_errors=True)
    for rel, content in files.items():
        path = root / "submission" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_WARM", "PYTHONPATH")}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, AUTOGRADER_DEFENCES_OFF=defences_off)
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((root / "results" / "results.json").read_text())
    assert_valid_results(data)
    return data


def by_name(data):
    return {t["name"]: t for t in data["tests"]}


FIXED = solution_code(load(BC))
STARTER = (ROOT / "exercises" / "01_dynamo_core" / f"{BC}.py").read_text()


@pytest.mark.slow
def test_correct_broken_and_crashing_submissions(autograder_dir):
    correct = run_autograder(autograder_dir, {f"exercises/01_dynamo_core/{BC}.py": FIXED})
    assert correct["score"] == 5 and all(t["status"] == "passed" for t in correct["tests"])
    tests = by_name(correct)
    assert tests[f"{BC}: correct"]["visibility"] == "hidden", "the hidden check is a hidden test"
    assert tests[f"{BC}: compiles"]["visibility"] == "visible"
    assert "correct" not in correct["output"] and "PASSED  5/5" in correct["output"]
    assert correct["extra_data"]["exercises"][BC]["file"] == f"exercises/01_dynamo_core/{BC}.py", "graded from the zip's config"

    broken = run_autograder(autograder_dir, {f"{BC}.py": STARTER})
    assert broken["score"] == 0 and all(t["status"] == "failed" for t in broken["tests"])
    compiles = by_name(broken)[f"{BC}: compiles"]["output"]
    save_line = next(n for n, line in enumerate(STARTER.splitlines(), start=1) if "torch.save(" in line)
    assert f"{BC}.py, line {save_line}, in encode()" in compiles and "torch.save" in compiles and "1.2" in compiles
    assert "/autograder" not in broken["output"] and str(autograder_dir) not in broken["output"]

    # a crash that got past the policy and the audit hook (they refuse os._exit first)
    crashing = run_autograder(autograder_dir, {f"{BC}.py": "import os\nos._exit(3)\n"}, defences_off="policy,audit")
    assert crashing["score"] == 0 and len(crashing["tests"]) == 3
    assert "died" in crashing["output"] and all("died" in t["output"] for t in crashing["tests"])


@pytest.mark.slow
def test_notebook_upload_and_missing_file(autograder_dir):
    notebook = {"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": f"answer_{BC}", "solution": True}},
                           "source": ANSWER_LINE.format(id=BC) + "\n" + FIXED, "outputs": [], "execution_count": None}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    graded = run_autograder(autograder_dir, {"01_dynamo_core.ipynb": json.dumps(notebook)})
    assert graded["score"] == 5
    missing = run_autograder(autograder_dir, {"notes.txt": "I forgot the file"})
    assert missing["score"] == 0 and f"No file for {BC}" in missing["output"]
    cut = json.dumps(notebook)[:-60]  # an upload cut off inside its one answer cell
    damaged = run_autograder(autograder_dir, {"01_dynamo_core.ipynb": cut})
    assert damaged["score"] == 0 and "not valid JSON" in damaged["output"] and "Save the notebook" in damaged["output"]
    assert damaged["extra_data"]["damaged_notebooks"], "the instructor sees which upload was damaged"


def test_a_broken_autograder_still_writes_results(tmp_path):
    root = tmp_path / "autograder"
    archive = gradescope.build_zip(tmp_path / "autograder.zip", exercises=[BC])
    with zipfile.ZipFile(archive) as handle:
        handle.extractall(root / "source")
    (root / "source" / "course" / "gradescope.json").write_text("{not json")
    (root / "submission").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, timeout=120, check=True)
    data = json.loads((root / "results" / "results.json").read_text())
    assert_valid_results(data)
    assert data["score"] == 0 and "tell your instructor" in data["output"]


def test_setup_picks_a_python_that_runs(tmp_path):
    """A python3.12 on PATH that does not start (a broken alternative) is skipped, with a message."""
    setup = gradescope.zip_entries(exercises=[BC])["setup.sh"][0].decode()
    function = setup[setup.index("pick_python() {"):setup.index("\n}\n", setup.index("pick_python() {")) + 3]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3.12").write_text("#!/bin/sh\necho 'cannot execute binary file' >&2\nexit 126\n")
    (bin_dir / "python3.12").chmod(0o755)
    (bin_dir / "python3.11").symlink_to(sys.executable)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    proc = subprocess.run(["/bin/bash", "-c", function + "pick_python"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == str(bin_dir / "python3.11"), proc.stdout + proc.stderr
    assert "python3.12 does not run" in proc.stderr
    (bin_dir / "python3.11").unlink()
    (bin_dir / "python3.11").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "python3.11").chmod(0o755)
    proc = subprocess.run(["/bin/bash", "-c", function + "pick_python"], env={"PATH": str(bin_dir)}, capture_output=True, text=True)
    assert proc.returncode == 1, "nothing that runs: setup.sh installs python3.11 instead"


def test_a_nested_upload_names_its_file_once(tmp_path):
    """s03_carol/exercises/... in an upload: the message names that path once, not the folder twice."""
    from autograder.learner.view import relabel
    from autograder.format.result import CheckResult, Result

    path = tmp_path / "submission" / "s03_carol" / "exercises" / "01_dynamo_core" / f"{BC}.py"
    label = f"s03_carol/exercises/01_dynamo_core/{BC}.py"
    message = f"Graph break at {path}:18 in encode(); also seen at exercises/01_dynamo_core/{BC}.py:18 in encode()"
    result = Result(exercise=BC, status="failed", score=0, max_score=5, measurements={}, message=message,
                    checks=[CheckResult("compiles", "compiles", "failed", 0, 2, message)])
    shown = relabel(result, str(path), label).checks[0].message
    assert shown.count("s03_carol") == 2 and "s03_carol/s03_carol" not in shown
    assert shown.startswith(f"Graph break at {label}, line 18, in encode()")

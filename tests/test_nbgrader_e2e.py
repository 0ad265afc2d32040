"""The nbgrader course: generated from the masters, released with the broken code visible, graded out
of the kernel, feedback without hidden checks. The slow tests drive the real nbgrader CLI end to end.
"""

import copy
import csv
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

from autograder.classroom import nbgrader_bridge as bridge
from autograder.format.exercise import discover, load
from autograder.learner.view import HIDDEN_FAILED, learner_view, render
from autograder.format.result import CheckResult, Result

E2E_EXERCISES = ["breaks_checkpoint", "trace_tolist"]
ASSIGNMENT = "01_dynamo_core"
BC, TT = "breaks_checkpoint", "trace_tolist"


def build(out, *extra):
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def files_of(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def cells_by_id(nb):
    return {(c["metadata"].get("nbgrader") or {}).get("grade_id"): c for c in nb["cells"]}


def text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def code_of(source):
    """What a module runs, comments and layout aside, without its docstring and its __main__ demo."""
    import ast

    tree = ast.parse(source)
    body = [node for node in tree.body if not (isinstance(node, ast.If) and "__main__" in ast.unparse(node.test))]
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    return [ast.dump(node) for node in body]


# -- the generated course (fast) -----------------------------------------------------------------

def test_build_is_complete_and_deterministic(tmp_path):
    build(tmp_path / "a")
    build(tmp_path / "b")
    first, second = files_of(tmp_path / "a"), files_of(tmp_path / "b")
    assert first == second, "two builds from the same masters must be byte-identical"
    chapters = sorted({e.chapter for e in discover()})
    assert set(first) == {"nbgrader_config.py", "autograder_course.json"} | {f"source/{c}/{c}.ipynb" for c in chapters}


def test_check_reports_a_stale_course(tmp_path):
    course = tmp_path / "course"
    build(course, "--exercises", ",".join(E2E_EXERCISES))
    ok = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(course), "--check"],
                        cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    notebook = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook.write_text(notebook.read_text().replace("fix the code in this cell", "edited by hand"))
    stale = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(course), "--check"],
                           cwd=ROOT, capture_output=True, text=True)
    assert stale.returncode == 1 and "stale" in stale.stdout and "nbgrader build" in stale.stdout


def test_generated_config_sets_timeout_grading_step_and_feedback(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    build(tmp_path, "--exercises", BC)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert config.CourseDirectory.root == str(tmp_path)
    assert config.CourseDirectory.db_url == "sqlite:///" + str(tmp_path / "gradebook.db")
    assert config.Execute.timeout >= 120, "the 30 s default is too short for a compile"
    steps = list(config.Autograde.autograde_preprocessors)
    assert steps.index("autograder.classroom.nbgrader_grading.StartGradingAnswers") < steps.index("nbgrader.preprocessors.Execute")
    assert steps.index("nbgrader.preprocessors.Execute") < steps.index("autograder.classroom.nbgrader_grading.GradeAnswersOutOfKernel") \
        < steps.index("nbgrader.preprocessors.SaveAutoGrades")
    assert "nbgrader.preprocessors.ClearHiddenTests" in config.GenerateFeedback.preprocessors
    assert config.ClearSolutions.code_stub == {"python": bridge.CODE_STUB}
    assert config.AnswerGrading.manifest == str(tmp_path / bridge.MANIFEST)


def test_every_exercise_has_task_answer_and_locked_check_cells(tmp_path):
    build(tmp_path)
    for exercise in filter(bridge.fits_a_notebook, discover()):
        nb = json.loads((tmp_path / "source" / exercise.chapter / f"{exercise.chapter}.ipynb").read_text())
        cells = cells_by_id(nb)
        task, answer, check = (cells[f"task_{exercise.id}"], cells[f"answer_{exercise.id}"], cells[f"check_{exercise.id}"])
        assert task["metadata"]["nbgrader"]["locked"] and exercise.title in text(task)
        meta = answer["metadata"]["nbgrader"]
        assert meta["solution"] and not meta["grade"] and not meta["locked"] and meta["schema_version"] == 3
        source = text(answer)
        assert source == bridge.answer_source(exercise) and source.startswith(f"# ANSWER {exercise.id}:")
        assert "### BEGIN SOLUTION" in source, "the fix sits in solution blocks"
        released = bridge.released_answer_source(exercise)
        assert "TODO" in released and "BEGIN SOLUTION" not in released
        assert code_of(released) == code_of(exercise.starter.read_text()), \
            f"{exercise.id}: the released cell runs exactly the learner's exercises/ file"
        meta = check["metadata"]["nbgrader"]
        assert meta["grade"] and meta["locked"] and not meta["solution"] and meta["points"] == exercise.max_score
        assert "HIDDEN" not in text(check) and f"check_answer({exercise.id!r}" in text(check)
        assert check["id"] == f"check-{exercise.id.replace('_', '-')}", "cell ids come from exercise ids"


def test_source_answer_passes_and_released_answer_fails():
    """A6's golden test without nbgrader: the source cell grades as the fix, the released cell as the starter."""
    exercise = load(BC)
    passed = bridge.grade_source(BC, bridge.answer_source(exercise), seed=5)
    assert passed.passed, passed.message
    released = bridge.grade_source(BC, bridge.released_answer_source(exercise), seed=5)
    assert not released.passed and set(exercise.starter_fails) <= {c.name for c in released.failed_checks()}
    assert "your answer cell, line" in released.checks[0].message, "lines are the answer cell's"


@pytest.mark.slow
@pytest.mark.parametrize("exercise", list(filter(bridge.fits_a_notebook, discover())), ids=lambda e: e.id)
def test_every_source_answer_passes_and_every_released_answer_fails_as_declared(exercise):
    """A6's golden test for every exercise: the instructor's cell is the fix, the learner's the starter.

    Structure only (costly=False): timing checks grade the same code as the solution file, whose
    timed grading tests/test_exercises.py proves; here the point is that the cells carry that code."""
    source = bridge.grade_source(exercise.id, bridge.answer_source(exercise), seed=13, costly=False)
    assert source.passed, f"{exercise.id}: the source answer cell does not pass: {source.message}"
    released = bridge.grade_source(exercise.id, bridge.released_answer_source(exercise), seed=13, costly=False)
    assert set(exercise.starter_fails) <= {c.name for c in released.failed_checks()}, \
        f"{exercise.id}: the released cell does not fail as the starter does: {released.message}"


def test_find_answers_by_cell_then_by_first_line():
    nb = {"cells": [
        {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "answer_a_one"}}, "source": "x = 1\n"},
        {"cell_type": "code", "metadata": {}, "source": ["# ANSWER b_two: typed again\n", "y = 2\n"]},
        {"cell_type": "code", "metadata": {}, "source": "# ANSWER a_one: a copy\nx = 3\n"},
        {"cell_type": "markdown", "metadata": {}, "source": "# ANSWER c_three: not code"},
    ]}
    found = bridge.find_answers(nb)
    assert found["a_one"].source == "x = 1\n" and found["a_one"].how == "cell"
    assert found["b_two"].how == "marker" and "y = 2" in found["b_two"].source
    assert "c_three" not in found
    assert bridge.find_answers(nb, ["b_two"]).keys() == {"b_two"}


def test_learner_view_leaves_hidden_checks_out():
    result = Result(exercise="ex", status="failed", score=3, max_score=5, measurements={}, lesson="lessons/x.py",
                    message="secret: differs from the reference", checks=[
                        CheckResult("compiles", "compiles", "passed", 2, 2, "All calls ran at /tmp/q/ex.py:3."),
                        CheckResult("correct", "correct", "failed", 0, 2, "secret: differs from the reference"),
                        CheckResult("graphs", "graphs", "passed", 1, 1, "1 graph")])
    view = learner_view(result, ["correct"], path="/tmp/q/ex.py", label="your answer cell")
    shown = render(view)
    assert "secret" not in shown and "correct" not in shown
    assert "3/5" in shown and HIDDEN_FAILED in shown and "your answer cell, line 3," in shown
    assert "secret" in result.message, "the instructor's copy is untouched"


# -- the real nbgrader CLI, end to end (slow) ----------------------------------------------------

CHEAT_COMPILE = '''

def _fake_compile(fn=None, *, backend=None, fullgraph=False, **kw):
    if hasattr(backend, "frame_count"):
        backend.frame_count = 1  # pretend one graph was captured
    return fn


torch.compile = _fake_compile
'''

CHEAT_DYNAMO = '''

import torch._dynamo


def _fake_optimize(backend=None, nopython=False, **kw):
    counter = getattr(backend, "compiler_fn", backend)
    if hasattr(counter, "frame_count"):
        counter.frame_count, counter.op_count = 1, 5
    return lambda fn: fn  # run eagerly, never trace


torch._dynamo.optimize = _fake_optimize
'''

CHEAT_GRADER = '''

import json
import subprocess

import autograder
import autograder.engine.grader
import autograder.classroom.nbgrader_bridge


def _passed(*args, **kwargs):
    print("breaks_checkpoint: PASSED  5/5")


autograder.classroom.nbgrader_bridge.check_answer = _passed  # the check cell imports it after this cell ran
autograder.grade = autograder.engine.grader.grade = _passed
subprocess.run = lambda *a, **k: subprocess.CompletedProcess(a, 0, json.dumps({"status": "passed", "score": 5}), "")
subprocess.Popen = None
'''

EXPECTED = {"alice": 10, "bob": 0, "carol": 3, "mallory": 0, "mallory2": 0, "mallory3": 0, "dave": 5, "erin": 5}
HIDDEN_TEXTS = ["BEGIN HIDDEN", "'correct'", "hidden=", "differs from the reference", "match the reference", "largest difference",
                "nothing could be compared", "] correct (", "correct (0/2)", "correct (2/2)"]


def fixed(exercise_id):
    return bridge.ANSWER_LINE.format(id=exercise_id) + "\n" + bridge.solution_code(load(exercise_id))


def submissions(release):
    """The class: each student's notebook, made from the released one."""
    def student(edit):
        nb = copy.deepcopy(release)
        edit(nb, cells_by_id(nb))
        return nb

    def set_source(cell, source):
        cell["source"] = source

    def alice(nb, c):
        set_source(c[f"answer_{BC}"], fixed(BC))
        set_source(c[f"answer_{TT}"], fixed(TT))

    def carol(nb, c):  # one graph, wrong values: only the hidden check fails
        set_source(c[f"answer_{BC}"], fixed(BC).replace("F.normalize(hidden, dim=-1), hidden", "F.normalize(hidden, dim=0), hidden"))

    def cheat(code):
        return lambda nb, c: set_source(c[f"answer_{BC}"], text(c[f"answer_{BC}"]) + code)

    def dave(nb, c):  # a correct fix, the check cell retyped into a no-op worth 100; one exercise deleted
        set_source(c[f"answer_{BC}"], fixed(BC))
        check = c[f"check_{BC}"]
        set_source(check, 'print("ok")\n')
        check["metadata"]["nbgrader"].update(points=100, locked=False)
        nb["cells"] = [cell for cell in nb["cells"] if cell not in (c[f"answer_{TT}"], c[f"check_{TT}"])]

    def erin(nb, c):  # answer cells lost their nbgrader metadata: deleted and typed again
        nb["cells"].remove(c[f"answer_{BC}"])
        nb["cells"].append({"cell_type": "code", "id": "retyped-1", "metadata": {}, "execution_count": None,
                            "outputs": [], "source": fixed(BC)})
        del c[f"answer_{TT}"]["metadata"]["nbgrader"]

    return {"alice": student(alice), "bob": student(lambda nb, c: None), "carol": student(carol),
            "mallory": student(cheat(CHEAT_COMPILE)), "mallory2": student(cheat(CHEAT_DYNAMO)),
            "mallory3": student(cheat(CHEAT_GRADER)), "dave": student(dave), "erin": student(erin)}


def nbgrader_env(tmp):
    env = bridge.nbgrader_environment({k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"})
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "jupyter-config"), IPYTHONDIR=str(tmp / "ipython"))
    return env


def nbgrader(course, env, *args, timeout=900):
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
    return proc


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nbgrader")
    course = tmp / "course"
    env = nbgrader_env(tmp)
    build(course, "--exercises", ",".join(E2E_EXERCISES), "--hide", f"{BC}:correct", "--hide", f"{TT}:correct")
    nbgrader(course, env, "generate_assignment", ASSIGNMENT)
    release = json.loads((course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    for name, nb in submissions(release).items():
        folder = course / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{ASSIGNMENT}.ipynb").write_text(json.dumps(nb, indent=1))
    logs = {"autograde": nbgrader(course, env, "autograde", ASSIGNMENT).stderr,
            "feedback": nbgrader(course, env, "generate_feedback", ASSIGNMENT).stderr}
    export = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "export", "--course", str(course)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert export.returncode == 0, export.stdout + export.stderr
    return {"root": course, "release": release, "logs": logs, "env": env}


def feedback_html(course, student):
    return (course["root"] / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_release_shows_the_broken_code_not_the_fix(course):
    cells = cells_by_id(course["release"])
    for exercise_id in E2E_EXERCISES:
        exercise = load(exercise_id)
        answer = text(cells[f"answer_{exercise_id}"])
        assert answer == bridge.released_answer_source(exercise)
        assert "NotImplementedError" not in answer and "BEGIN SOLUTION" not in answer and "TODO" in answer
        fix_only = [line for line in bridge.solution_code(exercise).splitlines()
                    if line.strip() and line not in bridge.starter_code(exercise).splitlines()]
        assert fix_only and not any(line in answer.splitlines() for line in fix_only), "no line of the fix is released"
    assert bridge.stale_files(course["root"]) == [], "nbgrader leaves the generated source alone"


@pytest.mark.slow
def test_scores_come_from_out_of_kernel_grading(course):
    with open(course["root"] / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert {s: float(rows[s]["raw_score"]) for s in EXPECTED} == {s: float(v) for s, v in EXPECTED.items()}
    assert all(float(rows[s]["max_score"]) == 10 for s in EXPECTED)


@pytest.mark.slow
def test_cheats_in_the_answer_cell_score_zero_even_when_they_fool_the_kernel(course):
    results = course["root"] / "autograder_results" / ASSIGNMENT
    for student, caught in (("mallory", "torch.compile"), ("mallory2", "torch._dynamo.optimize"),
                            ("mallory3", "autograder.classroom.nbgrader_bridge.check_answer")):
        record = json.loads((results / f"{student}.json").read_text())
        graded = {e["id"]: e for e in record["exercises"]}[BC]
        assert graded["earned"] == 0
        assert caught in json.dumps(graded["result"]), f"{student}: the grader names what was replaced"
    mallory3 = {e["id"]: e for e in json.loads((results / "mallory3.json").read_text())["exercises"]}[BC]
    assert mallory3["kernel_check"]["failed"] is False, "the fake check_answer fooled the kernel's own check cell"
    honest = {e["id"]: e for e in json.loads((results / "bob.json").read_text())["exercises"]}[BC]
    assert honest["kernel_check"]["expected"] is True, "an untouched check cell refuses to score in the kernel"
    assert "tampered" in course["logs"]["autograde"]


@pytest.mark.slow
def test_retyped_and_deleted_cells(course):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course['root'] / 'gradebook.db'}") as gb:
        dave = gb.find_grade(f"check_{BC}", ASSIGNMENT, ASSIGNMENT, "dave")
        assert dave.score == 5 and dave.max_score == 5, "the retyped check cell neither scores nor changes the points"
        assert gb.find_grade(f"check_{TT}", ASSIGNMENT, ASSIGNMENT, "dave").score == 0
        assert gb.find_grade(f"check_{BC}", ASSIGNMENT, ASSIGNMENT, "erin").score == 5, "a retyped answer cell is found by its first line"
        assert gb.find_grade(f"check_{BC}", ASSIGNMENT, ASSIGNMENT, "carol").score == 3, "partial credit"
    autograded = json.loads((course["root"] / "autograded" / "dave" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    cells = cells_by_id(autograded)
    assert f"check_{TT}" in cells, "the deleted check cell is restored with the course grader's verdict"
    assert "no answer cell for trace_tolist" in "".join("".join(o.get("text", "")) for o in cells[f"check_{TT}"]["outputs"])
    assert text(cells[f"check_{BC}"]).startswith("# Check breaks_checkpoint"), "nbgrader restored the locked source"


@pytest.mark.slow
def test_feedback_has_the_learner_messages_and_never_a_hidden_check(course):
    for student in EXPECTED:
        html = feedback_html(course, student)
        for secret in HIDDEN_TEXTS:
            assert secret not in html, f"{student}'s feedback shows hidden content: {secret!r}"
    bob = feedback_html(course, "bob")
    save_line = next(n for n, line in enumerate(bridge.released_answer_source(load(BC)).split("\n"), start=1)
                     if "torch.save(" in line)
    assert f"Graph break at your answer cell, line {save_line}, in encode()" in bob and "torch.save" in bob
    assert "Lesson section 1.2" in bob and "Score: 0.0 / 10.0" in bob
    carol = feedback_html(course, "carol")
    assert HIDDEN_FAILED in carol and "Score: 3.0 / 10.0" in carol
    assert "torch.compile was replaced" in feedback_html(course, "mallory")
    assert "no answer cell for trace_tolist" in feedback_html(course, "dave")
    instructor = json.loads((course["root"] / "autograder_results" / ASSIGNMENT / "carol.json").read_text())
    assert "differs from the reference" in json.dumps(instructor), "the instructor's record keeps the hidden check"


@pytest.mark.slow
def test_source_notebook_validates_with_the_in_kernel_check(tmp_path):
    """The instructor's source notebook passes its own check cells: the in-kernel path grades the answer too."""
    build(tmp_path, "--exercises", BC)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "validate", f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"],
                          cwd=tmp_path, env=nbgrader_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert "Success! Your notebook passes all the tests." in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.slow
def test_one_command_regrades_a_student(course):
    """`python -m autograder nbgrader grade`: autograde, feedback and export in one command."""
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "grade", ASSIGNMENT, "--course", str(course["root"]),
                           "--student", "carol", "--force"], cwd=ROOT, env=course["env"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(course["root"] / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(rows["carol"]["raw_score"]) == 3 and float(rows["alice"]["raw_score"]) == 10
    assert "Score: 3.0 / 10.0" in feedback_html(course, "carol")

"""The nbgrader course: generated from the masters, released with the broken code visible, graded out
of the kernel, feedback without hidden checks. The slow tests drive the real nbgrader CLI end to end.
"""

import copy
import csv
import json
import os
import subprocess
import sys
import time

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

    build(tmp_path, "--exercises", BC, "--due", "2025-03-01T23:59:00", "--late-policy", "per-day:10")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert config.CourseDirectory.root == str(tmp_path)
    assert config.CourseDirectory.db_url == "sqlite:///" + str(tmp_path / "gradebook.db")
    assert config.Execute.timeout >= 120, "the 30 s default is too short for a compile (for notebooks not of the course)"
    steps = list(config.Autograde.autograde_preprocessors)
    ours = "autograder.classroom.nbgrader_grading.GradeAnswersOutOfKernel"
    assert steps[0] == ours and steps.index(ours) < steps.index("nbgrader.preprocessors.SaveAutoGrades")
    assert "nbgrader.preprocessors.Execute" not in steps, "no learner code runs in nbgrader's kernel"
    sanitize = list(config.Autograde.sanitize_preprocessors)
    assert sanitize.index("autograder.classroom.nbgrader_grading.RestoreCourseCells") < sanitize.index("nbgrader.preprocessors.OverwriteCells")
    assert config.Autograde.exporter_class == "autograder.classroom.nbgrader_grading.SalvagingExporter"
    assert config.AssignLatePenalties.plugin_class == "autograder.classroom.nbgrader_grading.CourseLatePolicy"
    assert config.ExportApp.plugin_class == "autograder.classroom.nbgrader_grading.FlaggedCsvExport"
    assert "nbgrader.preprocessors.ClearHiddenTests" in config.GenerateFeedback.preprocessors
    assert config.ClearSolutions.code_stub == {"python": bridge.CODE_STUB}
    assert config.AnswerGrading.manifest == str(tmp_path / bridge.MANIFEST)
    manifest = bridge.read_manifest(tmp_path)
    assert manifest["assignments"][ASSIGNMENT]["due"] == "2025-03-01T23:59:00+00:00"
    assert manifest["options"]["late_policy"] == "per-day:10"


def test_release_keeps_the_fix_hint_back_unless_asked(tmp_path):
    exercise = load(BC)
    build(tmp_path / "plain", "--exercises", BC)
    build(tmp_path / "with", "--exercises", BC, "--with-fix-hint")
    for folder, shown in (("plain", False), ("with", True)):
        text = (tmp_path / folder / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
        assert (json.dumps(exercise.hints[-1])[1:-1] in text) is shown, folder
        assert json.dumps(exercise.hints[0])[1:-1] in text


def test_bad_build_options_are_usage_errors(tmp_path):
    for extra in (["--due", "99_nothing=2025-01-01"], ["--due", "tomorrow"], ["--late-policy", "per-week:5"]):
        proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(tmp_path), "--exercises", BC,
                               *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr, extra


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

EXPECTED = {"alice": 10, "bob": 0, "carol": 3, "mallory": 0, "mallory2": 0, "mallory3": 0, "dave": 5, "erin": 5,
            "frank": 5, "gina": 10, "hank": 10, "ivan": 0}
ON_TIME, DUE, LATE = "2025-03-01 12:00:00.000000 UTC", "2025-03-01T23:59:00", "2025-03-03 06:00:00.000000 UTC"
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

    def gina(nb, c):  # both fixed; the check cell unlocked in the nbgrader toolbar (an "autograded answer") and edited
        alice(nb, c)
        check = c[f"check_{BC}"]
        check["metadata"]["nbgrader"].update(solution=True, locked=False)
        set_source(check, 'print("breaks_checkpoint: PASSED  5/5")\n')
        # nbgrader stops the whole class at an old metadata version (SchemaTooOldError), in a cell of the
        # course or in a stray one
        c[f"check_{TT}"]["metadata"]["nbgrader"]["schema_version"] = 1
        nb["cells"].append({"cell_type": "code", "id": "stray", "execution_count": None, "outputs": [], "source": "x = 1\n",
                            "metadata": {"nbgrader": {"grade_id": "stray", "schema_version": 1, "grade": True, "points": 99}}})

    return {"alice": student(alice), "bob": student(lambda nb, c: None), "carol": student(carol),
            "mallory": student(cheat(CHEAT_COMPILE)), "mallory2": student(cheat(CHEAT_DYNAMO)),
            "mallory3": student(cheat(CHEAT_GRADER)), "dave": student(dave), "erin": student(erin),
            "gina": student(gina), "hank": student(alice)}


def truncated_after_first_answer(release):
    """frank's upload was cut off: the JSON ends inside the second exercise."""
    nb = copy.deepcopy(release)
    cells = cells_by_id(nb)
    cells[f"answer_{TT}"]["source"] = fixed(TT)
    cells[f"answer_{BC}"]["source"] = fixed(BC)
    text = json.dumps(nb, indent=1)
    return text[: text.index(f'"grade_id": "answer_{BC}"')]


def nbgrader_env(tmp):
    env = bridge.nbgrader_environment({k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"})
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "jupyter-config"), IPYTHONDIR=str(tmp / "ipython"))
    return env


def nbgrader(course, env, *args, timeout=900):
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"
    return proc


ROSTER = "id,first_name,last_name,email\n" + "".join(f"{name},{name.title()},Student,{name}@example.org\n" for name in EXPECTED)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The whole class graded with the one documented command, on the real nbgrader CLI."""
    tmp = tmp_path_factory.mktemp("nbgrader")
    course = tmp / "course"
    env = nbgrader_env(tmp)
    build(course, "--exercises", ",".join(E2E_EXERCISES), "--hide", f"{BC}:correct", "--hide", f"{TT}:correct",
          "--due", f"{ASSIGNMENT}={DUE}", "--late-policy", "per-day:10,cutoff:72h")
    nbgrader(course, env, "generate_assignment", ASSIGNMENT)
    release = json.loads((course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    notebooks = {name: json.dumps(nb, indent=1) for name, nb in submissions(release).items()}
    notebooks["frank"] = truncated_after_first_answer(release)
    for name, text in notebooks.items():
        folder = course / "submitted" / name / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / f"{ASSIGNMENT}.ipynb").write_text(text)
        (folder / "timestamp.txt").write_text(LATE if name == "hank" else ON_TIME)
    (tmp / "roster.csv").write_text(ROSTER)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "grade", ASSIGNMENT, "--course", str(course),
                           "--roster", str(tmp / "roster.csv")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    return {"root": course, "release": release, "log": proc.stderr, "env": env, "roster": tmp / "roster.csv",
            "seconds": time.monotonic() - started}


def grades(course):
    with open(course["root"] / "grades.csv", newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def record(course, student):
    return json.loads((course["root"] / "autograder_results" / ASSIGNMENT / f"{student}.json").read_text())


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
    rows = grades(course)
    assert {s: float(rows[s]["raw_score"]) for s in EXPECTED} == {s: float(v) for s, v in EXPECTED.items()}
    assert all(float(rows[s]["max_score"]) == 10 for s in EXPECTED)
    assert (rows["ivan"]["first_name"], rows["ivan"]["email"]) == ("Ivan", "ivan@example.org"), "names from the roster"
    assert rows["ivan"]["timestamp"] == "" and rows["ivan"]["flags"] == "no submission"
    autograded = json.loads((course["root"] / "autograded" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    answers = [c for c in autograded["cells"] if (c["metadata"].get("nbgrader") or {}).get("solution")]
    assert answers and all(c["execution_count"] is None and not c["outputs"] for c in answers), \
        "nbgrader's kernel never ran the learner's code"
    assert all(e["graded"] == "pregraded" for e in record(course, "alice")["exercises"]), "the class was graded before nbgrader ran"


@pytest.mark.slow
def test_a_damaged_notebook_is_graded_as_far_as_it_goes_and_flagged(course):
    rows = grades(course)
    assert float(rows["frank"]["raw_score"]) == 5, "the answer before the damage counts"
    assert "damaged notebook" in rows["frank"]["flags"] and "not valid JSON" in rows["frank"]["flags"]
    frank = record(course, "frank")
    assert any("damaged notebook" in flag for flag in frank["flags"])
    assert {e["id"]: e["earned"] for e in frank["exercises"]} == {TT: 5, BC: 0}
    assert "could not be read back" in json.dumps(frank["exercises"][1]["result"]) or "could not be read back" in json.dumps(frank)
    assert "could not be read back" in feedback_html(course, "frank"), "the learner is told why"


@pytest.mark.slow
def test_an_unlocked_and_edited_check_cell_is_restored_graded_and_flagged(course):
    rows = grades(course)
    assert float(rows["gina"]["raw_score"]) == 10, "nbgrader's 'Inconsistent checksums' no longer gives 0"
    assert "check_breaks_checkpoint had been changed" in rows["gina"]["flags"]
    flags = record(course, "gina")["flags"]
    assert any("solution" in flag and "source" in flag for flag in flags)
    assert any(f"check_{TT}" in flag and "metadata version" in flag for flag in flags), "an old schema version no longer stops the class"
    assert any("'stray'" in flag for flag in flags)
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course['root'] / 'gradebook.db'}") as gb:
        assert gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "gina").flagged, "formgrader shows the flag"
        assert not gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "alice").flagged


@pytest.mark.slow
def test_late_work_and_the_roster_summary(course):
    rows = grades(course)
    assert (float(rows["hank"]["raw_score"]), float(rows["hank"]["late_submission_penalty"]), float(rows["hank"]["score"])) \
        == (10, 2, 8), ("30 h late at 10 % per started day: two days", rows["hank"])
    assert float(rows["alice"]["late_submission_penalty"]) == 0
    reports = course["root"] / "class_reports" / ASSIGNMENT
    with open(reports / "lms.csv", newline="") as handle:
        lms = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert set(lms) == set(EXPECTED), "every student of the roster, with or without a submission"
    assert (lms["hank"][TT], lms["hank"][BC], lms["hank"]["late_penalty"], lms["hank"]["score"]) == ("5", "5", "2", "8"), lms["hank"]
    assert lms["hank"]["flags"].startswith("late by 30.0 h"), lms["hank"]
    assert (lms["ivan"]["max_score"], lms["ivan"]["score"], lms["ivan"]["flags"]) == ("10", "0", "no submission"), lms["ivan"]
    assert lms["dave"]["max_score"] == "10", ("the maximum is the assignment's, not what was submitted", lms["dave"])
    assert lms["alice"]["email"] == "alice@example.org" and lms["alice"]["percent"] == "100", lms["alice"]
    summary = json.loads((reports / "summary.json").read_text())
    assert summary["missing"] == ["ivan"] and "frank" in summary["flagged"] and "gina" in summary["flagged"], summary["flagged"]
    assert "no submission from: ivan" in course["log"], course["log"][-3000:]


@pytest.mark.slow
def test_class_report(course):
    html = (course["root"] / "class_reports" / ASSIGNMENT / "class-report.html").read_text()
    for section in ("Score histogram", "Exercises that fail most", "Per-check failure rate", "Missing work", "Flags"):
        assert section in html
    assert html.count("<svg") >= 3 and "ivan" in html and "frank" in html
    assert f"{BC}: compiles" in html, "the per-check rates name each check"
    assert "first failing: compiles" in html, "the most common first failing check of an exercise"


@pytest.mark.slow
def test_a_rerun_works_and_grades_nothing_twice(course):
    before = (course["root"] / "grades.csv").read_text()
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "grade", ASSIGNMENT, "--course", str(course["root"]),
                           "--roster", str(course["roster"])], cwd=ROOT, env=course["env"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pre-grading" not in proc.stderr, "nothing new to grade"
    assert (course["root"] / "grades.csv").read_text() == before


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
    shown = "".join("".join(o.get("text", "")) for o in cells[f"check_{TT}"]["outputs"])
    # It failed once inside a whole loaded suite and never alone: say what the cell showed instead.
    # (Once it showed the damaged-notebook message: the record's flags say why the notebook was read as damaged.)
    assert "no answer cell for trace_tolist" in shown, (shown[-2000:], record(course, "dave")["flags"])
    assert text(cells[f"check_{BC}"]).startswith("# Check breaks_checkpoint"), "the locked source is restored"
    flags = record(course, "dave")["flags"]
    assert any("check_breaks_checkpoint had been changed" in f for f in flags) and any("had been deleted" in f for f in flags)


@pytest.mark.slow
def test_cheats_in_the_answer_cell_score_zero(course):
    for student, caught in (("mallory", "torch.compile"), ("mallory2", "torch._dynamo.optimize"),
                            ("mallory3", "autograder.classroom.nbgrader_bridge.check_answer")):
        graded = {e["id"]: e for e in record(course, student)["exercises"]}[BC]
        assert graded["earned"] == 0
        assert caught in json.dumps(graded["result"]), f"{student}: the grader names what was replaced"


@pytest.mark.slow
def test_feedback_has_the_learner_messages_and_never_a_hidden_check(course):
    for student in set(EXPECTED) - {"ivan"}:  # feedback for everyone who submitted, the damaged notebook's author too
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
    mallory = feedback_html(course, "mallory")  # refused by the static policy before it runs, or caught by the child's watch
    assert "torch.compile" in mallory and ("may not change what it imported" in mallory or "was replaced" in mallory)
    dave = feedback_html(course, "dave")
    assert "no answer cell for trace_tolist" in dave, dave[-3000:]
    instructor = json.loads((course["root"] / "autograder_results" / ASSIGNMENT / "carol.json").read_text())
    assert "differs from the reference" in json.dumps(instructor), "the instructor's record keeps the hidden check"


@pytest.mark.slow
def test_source_notebook_validates_with_the_in_kernel_check(tmp_path):
    """The instructor's source notebook passes its own check cells: the in-kernel path grades the answer too."""
    build(tmp_path, "--exercises", BC)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "validate", f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"],
                          cwd=tmp_path, env=nbgrader_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert "Success! Your notebook passes all the tests." in proc.stdout, proc.stdout + proc.stderr
    print(f"nbgrader validate: {time.monotonic() - started:.1f} s")


@pytest.mark.slow
def test_plain_nbgrader_autograde_regrades_a_student(course):
    """Without the pre-grading (plain nbgrader), the grading step grades the answers itself."""
    nbgrader(course["root"], course["env"], "autograde", ASSIGNMENT, "--student", "carol", "--force")
    carol = record(course, "carol")
    assert {e["graded"] for e in carol["exercises"]} == {"graded"}
    assert {e["id"]: e["earned"] for e in carol["exercises"]}[BC] == 3


def test_regions_other_than_solution_and_starter_never_reach_a_cell():
    """Only SOLUTION and STARTER regions become cell code: the master's FAIR and WRONG variants (the
    verdict study's fixes) and its GRADER region are left out of every generated form."""
    from autograder.format.exercise import VARIANT_KINDS, _header_and_body

    exercise = load(BC)
    _, items = _header_and_body(exercise.master.read_text(), BC)
    variants = [item for item in items if not isinstance(item, str) and item.kind in VARIANT_KINDS]
    assert variants, "the test needs a master with FAIR/WRONG variants"
    lines = {line.strip() for item in variants for line in item.lines if len(line.strip()) > 12}
    forms = [bridge.answer_source(exercise), bridge.released_answer_source(exercise), bridge.solution_code(exercise),
             bridge.starter_code(exercise)]
    for form in forms:
        assert "BEGIN FAIR" not in form and "BEGIN WRONG" not in form and "BEGIN GRADER" not in form
        leaked = [line for line in lines if line in form and line not in exercise.master.read_text().split("# BEGIN FAIR")[0]]
        assert not leaked, leaked

"""The self-paced learner's tools: explanations, progress, the solution gate, watch."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.format.build import lesson_sections, syllabus_ids
from autograder.format.exercise import discover, lesson_files
from autograder.format.explain import course_map, explain
from autograder.learner.report import break_explanation, render
from conftest import ROOT

EXERCISES = discover()


def cli(*args, state, workspace=None):
    """The command line as a learner runs it, with progress in ``state`` and the working copies in
    ``workspace`` (default: a folder beside ``state``), never the repository's own workspace/."""
    env = {**os.environ, "AUTOGRADER_STATE": str(state), "NO_COLOR": "1",
           "AUTOGRADER_WORKSPACE": str(workspace or Path(state).parent / "workspace")}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_every_break_a_starter_triggers_is_explained_with_its_lesson_section(exercise, graded):
    result = graded(exercise.id, "starter")
    m = result.measurements
    reasons = [site["reason"] for site in m.get("break_sites", [])]
    known = {sid for sid, _, _ in syllabus_ids()}
    sections = lesson_sections()
    for reason in reasons:
        why = explain(reason)
        assert why.gb_type in course_map(), f"break type {why.gb_type!r} has no entry in autograder/break_lessons.toml"
        assert why.section in known
        chapter_lesson = ROOT / "lessons"
        written = any(re.match(rf"{int(why.section.split('.')[0]):02d}[a-z]?_", p.stem) for p in chapter_lesson.glob("*.py"))
        if written:
            assert why.section in sections, f"section {why.section} is not a heading of its chapter's lesson"
    if reasons:
        text = "\n".join(break_explanation(result))
        assert "Why the graph broke" in text or "plain Python" in text
        pointed = re.search(r"Lesson section ([\d.]+) \(([^)]+)\) teaches the fix", text)
        assert pointed, text
        # The pointer is the section that teaches this exercise's fix: in its own chapter, never a later one.
        assert pointed[1] in exercise.syllabus or pointed[1] == exercise.section, (pointed[1], exercise.syllabus)
        assert int(pointed[1].split(".")[0]) == exercise.chapter_number


def test_unknown_break_types_still_get_useful_advice():
    why = explain("Some break type nobody has seen\n  Explanation: x")
    assert why.section == "2.1" and "three ways" in why.advice and why.explanation == "x"


def test_report_for_a_failed_starter_names_line_reason_and_section(graded):
    text = render(graded("breaks_checkpoint", "starter"))
    assert "breaks_checkpoint.py:" in text and "torch.save" in text
    assert "Attempted to call function marked as skipped" in text and "Lesson section 1.2" in text
    assert "./course hint breaks_checkpoint" in text


def test_check_records_progress_and_unlocks_the_solution(tmp_path):
    state = tmp_path / "progress.json"
    locked = cli("solution", "trace_tolist", state=state)
    assert locked.returncode == 1 and "after you pass" in locked.stdout
    exercise = next(e for e in EXERCISES if e.id == "trace_tolist")
    copy = tmp_path / "workspace" / "exercises" / exercise.chapter / "trace_tolist.py"  # the learner's copy
    copy.parent.mkdir(parents=True)
    copy.write_text(exercise.master.read_text())  # the learner "fixes" it
    done = cli("check", "trace_tolist", state=state)
    assert done.returncode == 0, done.stdout
    assert json.loads(state.read_text())["trace_tolist"]["passed"] is True
    shown = cli("solution", "trace_tolist", state=state)
    assert shown.returncode == 0 and "(values * weights).sum(dim=-1)" in shown.stdout and "BEGIN" not in shown.stdout
    table = cli("progress", "--json", state=state)
    summary = json.loads(table.stdout)
    assert summary["passed"] == 1 and summary["exercises"] == len(EXERCISES)


def test_watch_once_checks_the_current_file(tmp_path):
    run = cli("watch", "breaks_checkpoint", "--once", state=tmp_path / "s.json")
    assert run.returncode == 1 and "/exercises/01_dynamo_core/breaks_checkpoint.py" in run.stdout
    assert (tmp_path / "workspace" / "exercises" / "01_dynamo_core" / "breaks_checkpoint.py").is_file()  # made on first use
    assert "FAIL" in run.stdout


# -- the workspace: the learner's copies, links, and a clean course ---------------------------------

def _prepare_workspace(tmp_path) -> Path:
    workspace = tmp_path / "workspace"
    made = subprocess.run([sys.executable, "-m", "autograder.learner.workspace"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "AUTOGRADER_WORKSPACE": str(workspace)})
    assert made.returncode == 0, made.stderr
    return workspace


def _markdown_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown")
    if path.suffix == ".py":
        import jupytext

        return "\n".join(c.source for c in jupytext.read(path).cells if c.cell_type == "markdown")
    return path.read_text()


def _broken_links(pages) -> tuple[list[str], int]:
    from autograder.learner.workspace import relative_links

    broken, followed = [], 0
    for page in pages:
        for target in relative_links(_markdown_of(page)):
            followed += 1
            if not (page.parent / target).exists():
                broken.append(f"{page}: {target}")
    return broken, followed


def test_every_link_of_the_course_and_of_the_learners_copies_opens_a_file(tmp_path):
    tracked = lesson_files() + [ROOT / "lessons" / "README.md", ROOT / "exercises" / "README.md"]
    broken, followed = _broken_links(tracked)
    assert not broken and followed > 50, broken
    workspace = _prepare_workspace(tmp_path)
    copies = sorted((workspace / "lessons").glob("*.ipynb")) + [workspace / "lessons" / "README.md", workspace / "exercises" / "README.md"]
    assert len(copies) == len(tracked)
    broken, followed = _broken_links(copies)
    assert not broken and followed > 50, broken
    # The lesson's exercise links open the learner's copy, and the home page opens the notebooks.
    home = (workspace / "lessons" / "README.md").read_text()
    assert "](01_dynamo_core.ipynb)" in home and "](../exercises/01_dynamo_core/trace_tolist.py)" in home
    assert (workspace / "exercises" / "01_dynamo_core" / "trace_tolist.py").read_text() == \
        (ROOT / "exercises" / "01_dynamo_core" / "trace_tolist.py").read_text()


def test_lesson_copies_are_not_paired_and_a_learners_work_is_never_overwritten(tmp_path):
    workspace = _prepare_workspace(tmp_path)
    notebook = workspace / "lessons" / "01_dynamo_core.ipynb"
    metadata = json.loads(notebook.read_text())["metadata"]
    assert "jupytext" not in metadata  # saving it never writes lessons/*.py
    edited = workspace / "exercises" / "01_dynamo_core" / "trace_tolist.py"
    edited.write_text("# mine\n")
    notebook.write_text(notebook.read_text().replace("Dynamo", "DYNAMO", 1))
    _prepare_workspace(tmp_path)  # ./course start again
    assert edited.read_text() == "# mine\n" and "DYNAMO" in notebook.read_text()


def test_a_lesson_can_be_made_afresh_and_the_old_notebook_is_kept(tmp_path):
    workspace = _prepare_workspace(tmp_path)
    notebook = workspace / "lessons" / "01_dynamo_core.ipynb"
    notebook.write_text(notebook.read_text().replace("Dynamo", "DYNAMO", 1))
    run = cli("reset", "01", state=tmp_path / "s.json", workspace=workspace)
    assert run.returncode == 0 and "afresh" in run.stdout and "backups" in run.stdout, run.stdout + run.stderr
    assert "DYNAMO" not in notebook.read_text()
    assert any("DYNAMO" in p.read_text() for p in (workspace / "backups").glob("01_dynamo_core.*.ipynb"))


# -- plain Python first ----------------------------------------------------------------------------

PLAIN_ERRORS = {
    # a typo: Dynamo says "failed to find name in frame builtins" and calls it a Dynamo bug
    "name": ("return (values * weigths).sum(dim=-1) / weights.sum()", "NameError: name 'weigths' is not defined"),
    # a wrong argument: Dynamo says "TypeError when making fake tensor call"
    "type": ("return torch.cat(values, weights).sum() / weights.sum()", "TypeError: cat()"),
    # a shape mismatch: Dynamo says "RuntimeError when making fake tensor call"
    "shape": ("return (values @ weights[:-1]) / weights.sum()", "RuntimeError: "),
}


@pytest.mark.parametrize("kind", sorted(PLAIN_ERRORS))
def test_an_ordinary_error_is_reported_as_itself_at_the_learners_line_before_any_dynamo_diagnosis(kind, tmp_path):
    from autograder.engine.grader import grade

    body, expected = PLAIN_ERRORS[kind]
    exercise = next(e for e in EXERCISES if e.id == "trace_tolist")
    source = exercise.starter.read_text()
    start = source.index("def weighted_row_means")
    end = source.index("\n\n\n", start)
    submission = tmp_path / "trace_tolist.py"
    submission.write_text(source[:start] + f"def weighted_row_means(values, weights):\n    {body}" + source[end:])
    line = submission.read_text().splitlines().index(f"    {body}") + 1
    result = grade("trace_tolist", submission, seed=3, warm=True)
    assert result.status == "failed" and result.score == 0
    text = render(result)
    first_lines = "\n".join(text.splitlines()[:2])
    assert expected in first_lines and f"line {line}" in first_lines and "as plain Python" in first_lines, text
    assert f"trace_tolist.py:{line}" in text
    for noise in ("Dynamo bug", "report an issue", "Why the graph broke", "fake tensor", "dont_skip_tracing"):
        assert noise not in text, f"{noise!r} in:\n{text}"
    assert text.count(expected) == 1, text  # the cause is said once


def test_pytorch_hints_meant_for_pytorch_developers_are_dropped():
    from autograder.learner.report import _useful_hints

    hints = ["This is likely to be a Dynamo bug. Please report an issue to PyTorch.",
             "Ensure the input tensor to `tolist()` is an integer type (e.g., int8, int16, int32, int64).",
             "Set torch._dynamo.config.dont_skip_tracing = True to trace into it.",
             "It may be possible to write Dynamo tracing rules for this code.",
             "Avoid calling the function `save`.", "Avoid calling the function `save`."]
    assert _useful_hints(hints) == ["Avoid calling the function `save`."]


# -- friendly everywhere ---------------------------------------------------------------------------

def test_an_unknown_id_gets_one_line_with_the_closest_ids():
    from autograder.learner.names import unknown_id_message

    ids = [e.id for e in EXERCISES]
    assert unknown_id_message("trace_tolst", ids) == "unknown exercise 'trace_tolst'; did you mean trace_tolist or trace_report?"
    assert "trace_tolist" in unknown_id_message("tolist", ids)
    far = unknown_id_message("zzzz", ids)
    assert "./course list" in far and len(far) < 100
    assert "terminal" not in unknown_id_message("zzzz", ids, where="notebook")
    run = cli("check", "trace_tolst", state=Path("/nonexistent/s.json"))
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1 and "trace_tolist" in run.stderr


def test_ctrl_c_in_watch_stops_quietly(tmp_path):
    import signal
    import time

    env = {**os.environ, "AUTOGRADER_STATE": str(tmp_path / "s.json"), "AUTOGRADER_WORKSPACE": str(tmp_path / "ws"),
           "NO_COLOR": "1"}
    # As from a terminal: a suite started as a background job (`cmd &` in a script) ignores SIGINT,
    # every process it starts inherits that, and Python then never raises KeyboardInterrupt.
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "watch", "breaks_checkpoint", "--interval", "0.2"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    seen = ""
    while "Next:" not in seen and time.monotonic() < deadline:  # the first check has been shown
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)  # seconds when run alone; inside the whole suite it has hung past 180 s (open)
    assert proc.returncode == 130 and "Traceback" not in err + out and "Stopped." in err, err


def test_a_closed_pipe_ends_quietly():
    run = subprocess.run(f"{sys.executable} -m autograder list | head -n 1", shell=True, cwd=ROOT, capture_output=True, text=True)
    assert run.stdout.strip() == "" or run.stdout.count("\n") == 1
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr, run.stderr


def test_progress_line_ticks_while_it_works_and_is_cleared():
    import time

    from autograder.learner.waiting import ticking, timed_checks, working_text

    shown, cleared = [], []
    with ticking(shown.append, cleared.append, every=0.05, after=0.05):
        time.sleep(0.4)
    assert len(shown) >= 3 and shown == sorted(shown) and len(cleared) == 1
    with ticking(shown.append, cleared.append, every=0.05, after=5):
        pass  # a quick grading shows nothing
    assert len(cleared) == 1
    timed = next(e for e in EXERCISES if timed_checks(e))
    assert "timing check" in working_text(timed, 12) and "12 s" in working_text(timed, 12)


@pytest.mark.slow
def test_in_a_notebook_hint_shows_once_an_unknown_id_does_not_stop_run_all_and_a_verdict_is_rich(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    cells = ['from autograder import check, hint', 'hint("trace_tolist")', 'check("trace_tolst")',
             'verdict = check("trace_tolist"); verdict', 'print("still running")']
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env = {"AUTOGRADER_STATE": str(tmp_path / "s.json"), "AUTOGRADER_WORKSPACE": str(tmp_path / "ws"), "PYTHONPATH": str(ROOT)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute()
    finally:
        for key, value in old.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)
    hint_out, unknown_out, verdict_out, last = (nb.cells[i].outputs for i in (1, 2, 3, 4))
    assert len(hint_out) == 1 and hint_out[0]["output_type"] == "execute_result"  # shown once, no print + repr
    assert hint_out[0]["data"]["text/plain"].startswith("Hint 1/")
    assert len(unknown_out) == 1 and "did you mean 'trace_tolist'" in unknown_out[0]["data"]["text/plain"]
    result = [o for o in verdict_out if o["output_type"] == "execute_result"][0]["data"]
    assert "trace_tolist: FAILED" in result["text/plain"] and "<details" in result["text/html"]
    assert "terminal" not in result["text/html"] and "./course" not in result["text/html"]
    assert "word-break:normal" in result["text/html"]  # JupyterLab's own output style breaks words anywhere
    assert last[0]["text"] == "still running\n"


def test_a_failed_graph_check_shows_where_the_function_split_into_graphs(graded):
    from autograder.learner.report import to_html, wants_diagram

    result = graded("compile_step_not_loop", "starter")
    assert wants_diagram(result) is True
    page = to_html(result)
    assert "Where your function split into graphs" in page and "data:image/png;base64," in page
    assert "<details" in page and "FAILED" in page
    assert wants_diagram(graded("compile_step_not_loop", "solution")) is False


def test_a_failure_that_is_not_the_learners_never_says_to_fix_their_file():
    from autograder.format.result import CheckResult, Result

    for stage in ("environment", "machine"):
        result = Result(exercise="trace_tolist", status="error", score=0, max_score=5,
                        checks=[CheckResult("compiles", "compiles", "failed", 0, 5, "Not run.", "1.1")], measurements={},
                        message="The grader runs under /usr/bin/python3, which has no torch: run ./course check trace_tolist.",
                        submission="workspace/exercises/01_dynamo_core/trace_tolist.py", extra={"stage": stage})
        text = render(result)
        assert "edit workspace" not in text and "Lesson section" not in text and "./course check trace_tolist" in text, text
    learners = Result(exercise="trace_tolist", status="error", score=0, max_score=5, checks=[], measurements={},
                      message="SyntaxError: invalid syntax (line 3).", submission="x.py")
    assert "Next: edit x.py" in render(learners)


def test_start_says_when_a_lesson_changed_since_the_learners_notebook_was_made(tmp_path):
    workspace = _prepare_workspace(tmp_path)
    notebook = workspace / "lessons" / "01_dynamo_core.ipynb"
    data = json.loads(notebook.read_text())
    data["metadata"]["course_source_sha256"] = "0" * 64  # as if made from an older lesson text
    notebook.write_text(json.dumps(data))
    again = subprocess.run([sys.executable, "-m", "autograder.learner.workspace"], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "AUTOGRADER_WORKSPACE": str(workspace)})
    assert "lessons/01_dynamo_core.py changed" in again.stdout and "./course reset 01_dynamo_core" in again.stdout
    assert json.loads(notebook.read_text())["metadata"]["course_source_sha256"] == "0" * 64  # never replaced unasked


def test_edits_a_learner_made_in_exercises_before_the_workspace_become_their_copy(tmp_path):
    """A learner of the course before the workspace edited exercises/ itself: their work moves into
    their copy, and reset still gives the real starting file."""
    import shutil

    course = tmp_path / "course"
    for name in ("autograder", "exercises", "solutions", "lessons"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    tracked = course / "exercises" / "01_dynamo_core" / "trace_tolist.py"
    tracked.write_text(tracked.read_text() + "# my earlier work\n")
    env = {**os.environ, "PYTHONPATH": str(course), "AUTOGRADER_STATE": str(tmp_path / "s.json")}
    env.pop("AUTOGRADER_WORKSPACE", None)
    made = subprocess.run([sys.executable, "-m", "autograder.learner.workspace"], cwd=course, env=env, capture_output=True, text=True)
    assert "earlier edits of 1 file(s)" in made.stdout, made.stdout + made.stderr
    copy = course / "workspace" / "exercises" / "01_dynamo_core" / "trace_tolist.py"
    assert copy.read_text().endswith("# my earlier work\n")
    reset = subprocess.run([sys.executable, "-m", "autograder", "reset", "trace_tolist"], cwd=course, env=env,
                           capture_output=True, text=True)
    assert reset.returncode == 0 and "# my earlier work" not in copy.read_text(), reset.stdout + reset.stderr
    assert copy.read_text() == (ROOT / "exercises" / "01_dynamo_core" / "trace_tolist.py").read_text()


def _alive(pid: int, started: str) -> bool:
    """Whether ``pid`` is still the process that had start time ``started`` (and not a zombie)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads processes from Linux's /proc")
def test_ctrl_c_in_a_cold_check_leaves_no_process_of_the_grading(tmp_path):
    import signal
    import time

    from autograder.sandbox.processes import descendants

    workspace = tmp_path / "ws"
    env = {**os.environ, "AUTOGRADER_STATE": str(tmp_path / "s.json"), "AUTOGRADER_WORKSPACE": str(workspace),
           "NO_COLOR": "1", "AUTOGRADER_WARM": "0", "AUTOGRADER_DEFENCES_OFF": "policy,audit"}
    first = subprocess.run([sys.executable, "-m", "autograder", "check", "trace_tolist"], cwd=ROOT, env=env,
                           capture_output=True, text=True)  # makes the learner's copy
    copy = next(workspace.rglob("trace_tolist.py"))
    copy.write_text(copy.read_text() + "\nwhile True:\n    pass\n")  # the learner's code is running when Ctrl-C comes
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "check", "trace_tolist"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as from a terminal
    deadline, grading = time.monotonic() + 120, []
    while time.monotonic() < deadline and len(grading) < 2:  # the judge and its learner child (the reference child is quick)
        time.sleep(0.5)
        grading = descendants(proc.pid)
    assert len(grading) >= 2, (first.stdout, grading)
    time.sleep(3)  # the learner's loop runs
    grading = {pid: open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19] for pid in descendants(proc.pid)}
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in out + err, err
    time.sleep(1)
    assert [pid for pid, started in grading.items() if _alive(pid, started)] == []

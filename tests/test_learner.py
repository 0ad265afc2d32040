"""The self-paced learner's tools: explanations, progress, the solution gate, watch."""

import json
import os
import re
import subprocess
import sys

import pytest

from autograder.format.build import lesson_sections, syllabus_ids
from autograder.format.exercise import discover
from autograder.format.explain import course_map, explain
from autograder.learner.report import break_explanation, render
from conftest import ROOT

EXERCISES = discover()


def cli(*args, state, exercises=None):
    env = {**os.environ, "AUTOGRADER_STATE": str(state), "NO_COLOR": "1"}
    if exercises is not None:
        env["AUTOGRADER_EXERCISES"] = str(exercises)
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
        assert "Why the graph broke" in text and "lesson section" in text


def test_unknown_break_types_still_get_useful_advice():
    why = explain("Some break type nobody has seen\n  Explanation: x")
    assert why.section == "2.1" and "three ways" in why.advice and why.explanation == "x"


def test_report_for_a_failed_starter_names_line_reason_and_section(graded):
    text = render(graded("breaks_checkpoint", "starter"))
    assert "breaks_checkpoint.py:" in text and "torch.save" in text
    assert "Attempted to call function marked as skipped" in text and "lesson section" in text
    assert "python -m autograder hint breaks_checkpoint" in text


def test_check_records_progress_and_unlocks_the_solution(tmp_path):
    state = tmp_path / "progress.json"
    locked = cli("solution", "trace_tolist", state=state)
    assert locked.returncode == 1 and "after you pass" in locked.stdout
    import shutil

    copy = tmp_path / "exercises"  # the learner's working copies, away from the repository's files
    shutil.copytree(ROOT / "exercises", copy)
    exercise = next(e for e in EXERCISES if e.id == "trace_tolist")
    (copy / exercise.chapter / "trace_tolist.py").write_text(exercise.master.read_text())  # the learner "fixes" it
    done = cli("check", "trace_tolist", state=state, exercises=copy)
    assert done.returncode == 0, done.stdout
    assert json.loads(state.read_text())["trace_tolist"]["passed"] is True
    shown = cli("solution", "trace_tolist", state=state)
    assert shown.returncode == 0 and "(values * weights).sum(dim=-1)" in shown.stdout and "BEGIN" not in shown.stdout
    table = cli("progress", "--json", state=state)
    summary = json.loads(table.stdout)
    assert summary["passed"] == 1 and summary["exercises"] == len(EXERCISES)


def test_watch_once_checks_the_current_file(tmp_path):
    run = cli("watch", "breaks_checkpoint", "--once", state=tmp_path / "s.json")
    assert run.returncode == 1 and "Watching exercises/01_dynamo_core/breaks_checkpoint.py" in run.stdout
    assert "FAIL" in run.stdout

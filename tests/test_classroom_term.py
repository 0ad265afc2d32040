"""The pieces a term is made of: due dates and the late policy, the roster, damaged notebooks read as
far as they go, the per-student table, and the learner release without solutions/."""

import datetime
import json
import subprocess
import sys

import pytest

from conftest import ROOT

from autograder.classroom import records, salvage
from autograder.classroom.class_report import check_failures, exercise_failures, render
from autograder.classroom.roster import RosterError, Student, read_roster
from autograder.classroom.term import DAY_S, LatePolicy, TermError, parse_due, parse_time, read_manifest, submitted_at

UTC = datetime.timezone.utc


# -- time ----------------------------------------------------------------------------------------

def test_late_policy_penalties():
    assert LatePolicy.parse("none").penalty(10, 5 * DAY_S) == 0
    per_day = LatePolicy.parse("per-day:10")
    assert per_day.penalty(10, 0) == 0 and per_day.penalty(10, 1) == 1, "a started day counts"
    assert per_day.penalty(10, DAY_S) == 1 and per_day.penalty(10, DAY_S + 1) == 2
    assert per_day.penalty(10, 30 * DAY_S) == 10, "never more than the score"
    assert per_day.penalty(0, DAY_S) == 0
    both = LatePolicy.parse("per-day:10,cutoff:72h")
    assert both.penalty(10, 71 * 3600) == 3 and both.penalty(10, 72 * 3600 + 1) == 10
    assert LatePolicy.parse("cutoff:2d").penalty(8, DAY_S) == 0 and LatePolicy.parse("cutoff:2d").penalty(8, 2 * DAY_S + 1) == 8
    assert both.text() == "per-day:10,cutoff:72h" and LatePolicy.parse(both.text()) == both
    for bad in ("per-week:5", "per-day:0", "per-day:150", "per-day:x", "cutoff:soon", "cutoff:"):
        with pytest.raises(TermError):
            LatePolicy.parse(bad)


def test_due_dates_and_times():
    due = parse_due(["2025-03-01T23:59:00", "02_graph_breaks=2025-03-15T12:00:00+02:00"])
    assert due == {"*": "2025-03-01T23:59:00+00:00", "02_graph_breaks": "2025-03-15T10:00:00+00:00"}
    assert parse_time("2025-03-01 12:00:00.000000 UTC") == datetime.datetime(2025, 3, 1, 12, tzinfo=UTC), "nbgrader's format"
    assert parse_time("2025-03-01T12:00:00Z") == datetime.datetime(2025, 3, 1, 12, tzinfo=UTC)
    for bad in (["not_a_chapter=2025-01-01"], ["01_dynamo_core=yesterday"]):
        with pytest.raises(TermError):
            parse_due(bad)


def test_manifest_scopes(tmp_path):
    path = tmp_path / "manifest.csv"
    path.write_text("student,submitted_at,exercise\nann,2025-03-01T10:00:00,\nann,2025-03-02T10:00:00,trace_tolist\n")
    times = read_manifest(path)
    assert submitted_at(times, "ann", "trace_tolist", "01_dynamo_core").day == 2, "an exercise's own time wins"
    assert submitted_at(times, "ann", "breaks_checkpoint", "01_dynamo_core").day == 1
    assert submitted_at(times, "bob", "trace_tolist", "01_dynamo_core") is None
    (tmp_path / "bad.csv").write_text("name,when\nann,2025\n")
    with pytest.raises(TermError):
        read_manifest(tmp_path / "bad.csv")


# -- the roster ----------------------------------------------------------------------------------

def test_roster_columns_names_and_errors(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("\ufeffStudent_ID,Name,Email\nann,Ann Lee,ann@example.org\n\nbob,,\n")
    assert read_roster(path) == [Student("ann", "Ann", "Lee", "ann@example.org"), Student("bob")]
    path.write_text("id,first_name\nann,A\nann,B\n")
    with pytest.raises(RosterError, match="twice"):
        read_roster(path)
    path.write_text("name,email\nAnn,a@x\n")
    with pytest.raises(RosterError, match="id"):
        read_roster(path)


# -- damaged notebooks ---------------------------------------------------------------------------

NOTEBOOK = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# intro"},
                      {"cell_type": "code", "metadata": {}, "source": ["# ANSWER a_one: x\n", "x = 1\n"], "outputs": []},
                      {"cell_type": "code", "metadata": {}, "source": "# ANSWER b_two: y\ny = 2\n", "outputs": []}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_salvage_keeps_every_cell_before_the_damage(tmp_path):
    text = json.dumps(NOTEBOOK, indent=1)
    assert salvage.read_text(text.encode()).sound
    cut = salvage.read_text(text[: text.index("b_two") - 20].encode())
    assert not cut.sound and "not valid JSON" in cut.problem and "2 cell(s)" in cut.problem
    assert [c["cell_type"] for c in cut.cells] == ["markdown", "code"]
    assert salvage.read_text(b"").cells == [] and "not valid JSON" in salvage.read_text(b"").problem
    assert "not a notebook" in salvage.read_text(b'{"cells": 3}').problem
    latin = salvage.read_text(text.replace("x = 1", "x = '\u00e9'").encode("latin-1"))
    assert "not UTF-8" in latin.problem and len(latin.cells) == 3
    odd = dict(NOTEBOOK, cells=NOTEBOOK["cells"] + [{"cell_type": "code", "source": 5}, "junk"])
    assert "2 malformed cell(s)" in salvage.read_text(json.dumps(odd).encode()).problem
    link = tmp_path / "link.ipynb"
    (tmp_path / "real.ipynb").write_text(text)
    link.symlink_to(tmp_path / "real.ipynb")
    assert "symbolic link" in salvage.read_notebook(link).problem and salvage.read_notebook(link).cells == []


# -- the per-student table and the report ---------------------------------------------------------

def test_per_student_table_counts_the_assignment_not_the_submissions():
    exercises = {"ex_a": ("01_x", 5.0), "ex_b": ("01_x", 5.0)}
    graded = [records.Entry("ann", "ex_a", "01_x", "passed", 5, 5, checks=["compiles"]),
              records.Entry("bob", "ex_a", "01_x", "failed", 2, 5, first_failed="graphs", failed_checks=["graphs"],
                            checks=["compiles", "graphs"], submitted_at=datetime.datetime(2025, 3, 3, tzinfo=UTC)),
              records.Entry("bob", "ex_b", "01_x", "passed", 5, 5, checks=["compiles"],
                            submitted_at=datetime.datetime(2025, 3, 3, tzinfo=UTC))]
    roster = [Student("ann", "Ann"), Student("bob"), Student("cy")]
    entries = records.complete(graded, [s.id for s in roster], exercises)
    records.apply_late_policy(entries, {"01_x": "2025-03-02T00:00:00+00:00"}, LatePolicy.parse("per-day:50"))
    rows = {row.student.id: row for row in records.per_student(entries, roster, list(exercises), {"ann": ["damaged"]})}
    assert (rows["ann"].score, rows["ann"].max_score, rows["ann"].percent) == (5, 10, 50)
    assert rows["ann"].flags == ["damaged"]
    assert (rows["bob"].raw_score, rows["bob"].late_penalty, rows["bob"].score) == (7, 3.5, 3.5)
    assert rows["bob"].flags == ["late by 24.0 h (penalty 3.5)"]
    assert (rows["cy"].max_score, rows["cy"].submitted, rows["cy"].flags) == (10, 0, ["no submission"])
    csv_text = records.lms_csv(list(rows.values()), list(exercises))
    assert csv_text.splitlines()[0].startswith("student_id,first_name,last_name,email,ex_a,ex_b,raw_score")
    assert exercise_failures(entries)[0] == {"exercise": "ex_a", "submissions": 2, "not_passed": 1, "rate": 50.0,
                                             "first_failing": "graphs", "first_failing_count": 1}
    assert {(c["exercise"], c["check"]): c["rate"] for c in check_failures(entries)} == {
        ("ex_a", "graphs"): 100.0, ("ex_a", "compiles"): 0.0, ("ex_b", "compiles"): 0.0}
    html = render("t", list(rows.values()), entries)
    assert html.count("<svg") == 3 and "cy" in html and "damaged" in html


# -- the learner release --------------------------------------------------------------------------

def test_learner_release_has_no_solutions_and_is_a_git_target(tmp_path):
    out = tmp_path / "learner"
    proc = subprocess.run([sys.executable, "-m", "autograder", "classroom", "release", "--out", str(out), "--git"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not (out / "solutions").exists() and not (out / "tests").exists() and not (out / "benchmarks").exists()
    assert (out / "exercises" / "01_dynamo_core" / "breaks_checkpoint.py").read_text() == \
        (ROOT / "exercises" / "01_dynamo_core" / "breaks_checkpoint.py").read_text()
    assert (out / "autograder" / "learner" / "remote.py").is_file() and (out / "lessons" / "01_dynamo_core.py").is_file()
    masters = {p.read_bytes() for p in (ROOT / "solutions").rglob("*.py")}
    assert not [p for p in out.rglob("*") if p.is_file() and p.read_bytes() in masters], "no master, under any name"
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(out), str(clone)], check=True, timeout=60)  # what nbgitpuller does
    assert (clone / "CLASSROOM.json").is_file() and not (clone / "solutions").exists()
    (out / "exercises" / "stray.py").write_text("left over\n")
    subprocess.run([sys.executable, "-m", "autograder", "classroom", "release", "--out", str(out), "--git"], cwd=ROOT,
                   capture_output=True, check=True, timeout=120)
    assert not (out / "exercises" / "stray.py").exists(), "a rebuilt release drops what the course no longer has"
    log = subprocess.run(["git", "-C", str(out), "log", "--oneline"], capture_output=True, text=True, check=True).stdout
    assert len(log.splitlines()) == 1, "an unchanged release makes no new commit"

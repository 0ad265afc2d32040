"""``nbgrader grade``: the whole class, every step for every student, then the class's records.

    python -m autograder nbgrader grade ASSIGNMENT --course DIR [--roster CSV] [--workers N] [--regrade]

1. The roster (if given) goes into the gradebook, with names and emails, so that ``grades.csv``
   lists every student, with a submission or not; the assignment's due date (from the build)
   goes in too, for nbgrader's late penalties.
2. Pre-grading: every submitted notebook is read (a damaged one as far as it goes) and each of
   its answer cells is graded, warm and in parallel across the whole class, before nbgrader runs.
   nbgrader's grading step then takes each result for the same source, so the class costs its
   gradings spread over the workers, not one notebook after another; an answer that hangs costs
   its exercise's time limit. ``--regrade`` grades every submission again with the seed its
   last grading recorded (after a grader fix, say) and redoes every step with ``--force``.
3. ``nbgrader autograde``, ``generate_feedback`` and ``export`` each run for the whole class.
   A step that fails for one student does not stop the others or the next step: the students it
   failed for are flagged, and the command exits 1 after everything else is done.
4. The class's records, in ``class_reports/<assignment>/``: ``lms.csv`` (one row per student,
   one column per exercise, names and emails from the roster), ``summary.json`` (every student and
   exercise, flags, missing work) and ``class-report.html``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from autograder.classroom import nbgrader_bridge as bridge
from autograder.classroom import records, salvage
from autograder.classroom.class_report import render as render_report
from autograder.classroom.roster import Student, read_roster
from autograder.classroom.term import LatePolicy, parse_time
from autograder.format.exercise import load

OUR_STEP = "autograder.classroom.nbgrader_grading.GradeAnswersOutOfKernel"
_FAILED = re.compile(r"There was an error processing assignment '([^']+)' for student '([^']+)'")


@dataclass
class ClassOptions:
    course: Path
    assignment: str
    student: str | None = None
    force: bool = False
    regrade: bool = False
    roster: Path | None = None
    workers: int = 2
    timeout: float | None = None
    stream: object = field(default=None, repr=False)
    run: str = field(default_factory=lambda: secrets.token_hex(8))  # ties the pre-grading to the nbgrader run after it


def _say(options, text: str) -> None:
    print(text, file=options.stream or sys.stderr, flush=True)


def config_has_our_step(course: Path) -> bool:
    from traitlets.config.loader import PyFileConfigLoader

    try:
        config = PyFileConfigLoader(bridge.CONFIG, path=str(course)).load_config()
        return OUR_STEP in list(config.Autograde.autograde_preprocessors)
    except Exception:  # noqa: BLE001 - an unreadable config is reported as missing the step
        return False


def results_root(course: Path) -> Path:
    return course / "autograder_results"


def reports_folder(course: Path, assignment: str) -> Path:
    """Where the class's records of an assignment go (not among the per-student records)."""
    return course / "class_reports" / assignment


def submitted_notebooks(course: Path, assignment: str, notebook: str, student: str | None = None) -> dict[str, Path]:
    """Student id -> the submitted notebook (present or not) of every student folder in submitted/."""
    base = course / "submitted"
    found = {}
    for folder in sorted(base.iterdir()) if base.is_dir() else []:
        if folder.is_dir() and not folder.is_symlink() and not folder.name.startswith(".") and (folder / assignment).is_dir():
            if student is None or folder.name == student:
                found[folder.name] = folder / assignment / f"{notebook}.ipynb"
    return found


def _recorded_seeds(course: Path, assignment: str, student: str) -> dict[str, int]:
    try:
        record = json.loads((results_root(course) / assignment / f"{student}.json").read_text(encoding="utf-8"))
        return {e["id"]: e["result"]["seed"] for e in record["exercises"] if e["result"].get("seed") is not None}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def pregrade(options: ClassOptions, entry: dict) -> dict:
    """Grade every answer of every submitted notebook, warm and in parallel; write .pregraded/."""
    from autograder.classroom.nbgrader_grading import PREGRADED, source_digest
    from autograder.engine import zygote

    course, assignment = options.course, options.assignment
    ids = [item["id"] for item in entry["exercises"]]
    jobs, students = [], {}
    for student, path in submitted_notebooks(course, assignment, entry["notebook"], options.student).items():
        done = (course / "autograded" / student / assignment / f"{entry['notebook']}.ipynb").is_file()
        if done and not (options.force or options.regrade) or not path.exists():
            continue
        answers = bridge.find_answers(salvage.read_notebook(path).notebook(), ids)
        seeds = _recorded_seeds(course, assignment, student) if options.regrade else {}
        students[student] = {}
        for exercise_id, answer in answers.items():
            jobs.append((student, exercise_id, answer.source, seeds.get(exercise_id, secrets.randbelow(2**31))))
    if not jobs:
        return {"students": 0, "gradings": 0}
    pool = zygote.WarmPool(max(1, options.workers))
    previous = zygote.install(pool)
    lock = threading.Lock()

    def grade_one(job):
        student, exercise_id, source, seed = job
        try:
            result = bridge.grade_source(exercise_id, source, seed=seed, timeout=options.timeout, warm=True)
        except Exception as exc:  # noqa: BLE001 - left to nbgrader's step, which grades it again
            _say(options, f"pre-grading {student}/{exercise_id} failed ({type(exc).__name__}: {exc}); nbgrader's step grades it")
            return
        with lock:
            students[student][exercise_id] = {"sha256": source_digest(exercise_id, source), "seed": seed,
                                              "result": result.to_dict()}

    try:
        _say(options, f"pre-grading {len(jobs)} answer(s) of {len(students)} student(s) with {options.workers} warm worker(s)")
        with ThreadPoolExecutor(max_workers=max(1, options.workers)) as threads:
            list(threads.map(grade_one, jobs))
    finally:
        zygote.install(previous)
        pool.close()
    from autograder.classroom.nbgrader_grading import _write_atomic

    for student, graded in students.items():
        _write_atomic(results_root(course) / assignment / PREGRADED / f"{student}.json", {"run": options.run, "exercises": graded})
    return {"students": len(students), "gradings": len(jobs)}


def prepare_gradebook(course: Path, assignment: str, entry: dict, roster: list[Student] | None) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in roster or []:
            gb.update_or_create_student(student.id, first_name=student.first_name or None,
                                        last_name=student.last_name or None, email=student.email or None)
        if entry.get("due"):
            gb.update_or_create_assignment(assignment, duedate=parse_time(entry["due"]).replace(tzinfo=None))


def run_nbgrader(course: Path, args: list[str], options: ClassOptions) -> tuple[int, set[str]]:
    """Run one nbgrader step, its log passed through; returns (exit status, students it failed for)."""
    from autograder.classroom.nbgrader_grading import RUN_VARIABLE

    env = bridge.nbgrader_environment()
    env[RUN_VARIABLE] = options.run
    _say(options, "$ (cd " + str(course) + " && nbgrader " + " ".join(args) + ")")
    process = subprocess.Popen([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    failed = set()
    stream = options.stream or sys.stderr
    for line in process.stdout:
        stream.write(line)
        match = _FAILED.search(line)
        if match:
            failed.add(match[2])
    return process.wait(), failed


def _record_entries(course: Path, assignment: str) -> tuple[list, dict[str, list[str]]]:
    """Entries of the course grader's records, and each student's flags."""
    entries, flags = [], {}
    folder = results_root(course) / assignment
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            student = record["student"]
            when = parse_time(record["submitted_at"]) if record.get("submitted_at") else None
            for item in record["exercises"]:
                result = dict(item["result"], score=item["earned"], max_score=item["points"])
                entries.append(records.entry_from_result(student, item["id"], assignment, result, submitted_at=when,
                                                         submission=f"submitted/{student}/{assignment}"))
        except (ValueError, KeyError, TypeError):
            continue
        flags[student] = list(record.get("flags", []))
    return entries, flags


def class_records(course: Path, assignment: str, entry: dict, roster: list[Student] | None,
                  not_processed: dict[str, str]) -> dict:
    """lms.csv, summary.json and class-report.html for the assignment, from the course grader's records."""
    manifest = bridge.read_manifest(course)
    exercises = {item["id"]: (assignment, float(item["points"])) for item in entry["exercises"]}
    entries, flags = _record_entries(course, assignment)
    graded = {e.student for e in entries}
    for student in submitted_notebooks(course, assignment, entry["notebook"]):
        if student not in graded:
            not_processed.setdefault(student, "submitted, but nbgrader has not autograded it")
    for student, why in not_processed.items():
        flags.setdefault(student, []).append(why)
        if student not in graded:
            entries += [records.Entry(student, exercise_id, chapter, "error", 0.0, points, why)
                        for exercise_id, (chapter, points) in exercises.items()]
    students = list(roster) if roster else [Student(s) for s in sorted({e.student for e in entries})]
    on_roster = {s.id for s in students}
    for extra in sorted({e.student for e in entries} - on_roster):
        students.append(Student(extra))
        flags.setdefault(extra, []).append("not on the roster")
    entries = records.complete(entries, [s.id for s in students], exercises)
    # nbgrader assigns the late penalty in the gradebook (CourseLatePolicy); the records apply the same policy.
    policy = LatePolicy.parse(manifest["options"].get("late_policy"))
    records.apply_late_policy(entries, {assignment: entry["due"]} if entry.get("due") else {}, policy)
    rows = records.per_student(entries, students, list(exercises), flags)
    from autograder.classroom.nbgrader_grading import _write_atomic

    folder = reports_folder(course, assignment)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lms.csv").write_text(records.lms_csv(rows, list(exercises)), encoding="utf-8")
    summary = {"assignment": assignment, "due": entry.get("due"), "late_policy": policy.text(),
               "students": [row.to_dict() for row in rows], "entries": [e.to_dict() for e in entries],
               "missing": [row.student.id for row in rows if not row.submitted],
               "flagged": {row.student.id: row.flags for row in rows if row.flags}}
    _write_atomic(folder / "summary.json", summary)
    notes = [f"Assignment {assignment}; due {entry.get('due') or 'no due date'}; {policy.describe()}."]
    (folder / "class-report.html").write_text(render_report(f"{assignment}: class report", rows, entries, notes), encoding="utf-8")
    return summary


def grade_class(options: ClassOptions) -> int:
    course, assignment = options.course, options.assignment
    manifest = bridge.read_manifest(course)
    entry = manifest["assignments"].get(assignment)
    if entry is None:
        raise ValueError(f"{assignment!r} is not an assignment of the course in {course}: {', '.join(sorted(manifest['assignments']))}")
    if not config_has_our_step(course):
        raise ValueError(f"{course / bridge.CONFIG} does not grade answers with the course grader "
                         f"({OUR_STEP} is not among its autograde steps): rebuild it with `{bridge.GENERATED_BY} --out {course}`")
    roster = read_roster(options.roster) if options.roster else None
    prepare_gradebook(course, assignment, entry, roster)
    started = time.monotonic()
    stats = pregrade(options, entry)
    if stats["gradings"]:
        _say(options, f"pre-graded {stats['gradings']} answer(s) of {stats['students']} student(s) in {time.monotonic() - started:.1f} s")
    extra = ([f"--student={options.student}"] if options.student else []) + (["--force"] if options.force or options.regrade else [])
    not_processed: dict[str, str] = {}
    failures = []
    for step, why in ((["autograde", assignment, *extra], "nbgrader could not autograde this submission (see its log)"),
                      (["generate_feedback", assignment, *extra], "nbgrader could not generate the feedback (see its log)"),
                      (["export"], "")):
        started = time.monotonic()
        code, failed = run_nbgrader(course, step, options)
        _say(options, f"nbgrader {step[0]}: {time.monotonic() - started:.1f} s")
        for student in failed:
            not_processed.setdefault(student, why)
        if code != 0:
            failures.append(f"nbgrader {step[0]} exited with status {code}"
                            + (f" (failed for: {', '.join(sorted(failed))})" if failed else ""))
    summary = class_records(course, assignment, entry, roster, not_processed)
    folder = reports_folder(course, assignment)
    _say(options, f"grades: {course / 'grades.csv'}; per student: {folder / 'lms.csv'}; report: {folder / 'class-report.html'}")
    if summary["missing"]:
        _say(options, f"no submission from: {', '.join(summary['missing'])}")
    for student, flags in summary["flagged"].items():
        if flags != ["no submission"]:
            _say(options, f"flagged {student}: {'; '.join(flags)}")
    for failure in failures:
        _say(options, f"warning: {failure}; every other student and step was done.")
    return 1 if failures else 0

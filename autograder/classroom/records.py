"""The class's grades as one table: every student of the roster, every exercise of the assignment.

Both routes (``grade-batch`` and ``nbgrader grade``) turn their results into ``Entry`` rows, one
per student and exercise, and hand them here. This module fills in what is missing (a student
on the roster with no submission, an exercise a student did not submit: both score 0 of the
exercise's points and say so), applies the late policy, and writes

- ``lms.csv``: one row per student, the roster's names and emails, one column per exercise, the
  raw score, the late penalty, the final score, the maximum *of the assignment* (never only of
  what was submitted), the percentage, and the flags (why a submission needs a look);
- the ``class`` part of ``summary.json`` (the same numbers, per student and per exercise).

Plain data: no torch, no nbgrader.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field

from autograder.classroom.roster import Student
from autograder.classroom.term import LatePolicy, due_for, iso, seconds_late

MISSING = "missing"


@dataclass
class Entry:
    student: str
    exercise: str
    assignment: str  # the chapter folder
    status: str  # passed / failed / error / missing
    score: float
    max_score: float
    message: str = ""
    first_failed: str = ""  # the first failing check's name ("" when none failed)
    failed_checks: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)  # every check's name, failed or not
    seed: int | None = None
    submitted_at: object = None  # an aware datetime, or None when unknown
    flags: list[str] = field(default_factory=list)
    submission: str = ""
    late_penalty: float = 0.0
    seconds_late: float = 0.0

    def to_dict(self) -> dict:
        data = asdict(self)
        data["submitted_at"] = iso(self.submitted_at)
        return data


def entry_from_result(student: str, exercise: str, assignment: str, result: dict, **extra) -> Entry:
    """An Entry from a Result's dict (as stored in the results files)."""
    failed = [c["name"] for c in result.get("checks", []) if c.get("status") == "failed"]
    return Entry(student, exercise, assignment, result["status"], float(result["score"]), float(result["max_score"]),
                 result.get("message", ""), failed[0] if failed else "", failed, [c["name"] for c in result.get("checks", [])],
                 result.get("seed"), **extra)


def missing_entry(student: str, exercise: str, assignment: str, points: float, why: str) -> Entry:
    return Entry(student, exercise, assignment, MISSING, 0.0, float(points), why)


def complete(entries: list[Entry], students: list[str], exercises: dict[str, tuple[str, float]]) -> list[Entry]:
    """Add a ``missing`` entry for every (student, exercise of the assignment) without one.

    ``exercises`` maps each exercise of the assignment to (assignment, points)."""
    have = {(e.student, e.exercise) for e in entries}
    out = list(entries)
    submitted_any = {e.student for e in entries if e.status != MISSING}
    for student in students:
        for exercise, (assignment, points) in exercises.items():
            if (student, exercise) not in have:
                why = (f"no submission of {exercise} from this student" if student in submitted_any
                       else "no submission at all from this student")
                out.append(missing_entry(student, exercise, assignment, points, why))
    order = {name: i for i, name in enumerate(exercises)}
    return sorted(out, key=lambda e: (e.student, order.get(e.exercise, len(order)), e.exercise))


def apply_late_policy(entries: list[Entry], due: dict[str, str], policy: LatePolicy) -> None:
    for entry in entries:
        entry.seconds_late = seconds_late(entry.submitted_at, due_for(due, entry.assignment))
        entry.late_penalty = policy.penalty(entry.score, entry.seconds_late) if entry.status != MISSING else 0.0


@dataclass
class StudentRow:
    student: Student
    scores: dict[str, float]
    raw_score: float
    late_penalty: float
    score: float
    max_score: float
    submitted: int  # exercises with a submission
    flags: list[str]

    @property
    def percent(self) -> float:
        return round(100 * self.score / self.max_score, 1) if self.max_score else 0.0

    def to_dict(self) -> dict:
        return {"student": self.student.id, "name": self.student.name, "email": self.student.email, "scores": self.scores,
                "raw_score": self.raw_score, "late_penalty": self.late_penalty, "score": self.score,
                "max_score": self.max_score, "percent": self.percent, "submitted": self.submitted, "flags": self.flags}


def per_student(entries: list[Entry], roster: list[Student], exercises: list[str],
                student_flags: dict[str, list[str]] | None = None) -> list[StudentRow]:
    """One row per student of ``roster``. ``student_flags`` are about a whole submission (a damaged
    notebook); an Entry's own flags are about its exercise and are shown with its id."""
    rows = []
    by_student: dict[str, list[Entry]] = {}
    for entry in entries:
        by_student.setdefault(entry.student, []).append(entry)
    for student in roster:
        mine = {e.exercise: e for e in by_student.get(student.id, [])}
        scores = {ex: round(mine[ex].score, 6) if ex in mine else 0.0 for ex in exercises}
        raw = round(sum(scores.values()), 6)
        penalty = round(sum(e.late_penalty for e in mine.values()), 6)
        flags = list((student_flags or {}).get(student.id, []))
        for ex in exercises:
            for flag in mine[ex].flags if ex in mine else []:
                text = f"{ex}: {flag}"
                if text not in flags:
                    flags.append(text)
        late = max((e.seconds_late for e in mine.values()), default=0.0)
        if late > 0:
            flags.append(f"late by {late / 3600:.1f} h" + (f" (penalty {penalty:g})" if penalty else " (no penalty)"))
        submitted = sum(1 for e in mine.values() if e.status != MISSING)
        if not submitted:
            flags.insert(0, "no submission")
        rows.append(StudentRow(student, scores, raw, penalty, round(raw - penalty, 6),
                               round(sum(mine[ex].max_score for ex in exercises if ex in mine), 6), submitted, flags))
    return rows


def lms_csv(rows: list[StudentRow], exercises: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student_id", "first_name", "last_name", "email", *exercises, "raw_score", "late_penalty", "score",
                     "max_score", "percent", "flags"])
    for row in rows:
        writer.writerow([row.student.id, row.student.first_name, row.student.last_name, row.student.email,
                         *(f"{row.scores[ex]:g}" for ex in exercises), f"{row.raw_score:g}", f"{row.late_penalty:g}",
                         f"{row.score:g}", f"{row.max_score:g}", f"{row.percent:g}", "; ".join(row.flags)])
    return buffer.getvalue()


def roster_from_entries(entries: list[Entry]) -> list[Student]:
    """Without a roster, the class is whoever submitted something."""
    return [Student(name) for name in sorted({e.student for e in entries})]

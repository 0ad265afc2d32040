"""The class list: who is enrolled, with the names and emails an LMS needs.

A roster is a CSV file with a header. The student's id is the column ``id`` (or ``student_id``,
``student``, ``username``): the folder name in ``submitted/`` or in a batch's SUBMISSIONS_DIR, the
nbgrader student id. Optional columns: ``first_name``, ``last_name``, ``name`` (split into first and
last when those are absent) and ``email``. nbgrader's ``nbgrader db student import`` reads the same
file. Blank lines and rows without an id are skipped; a duplicate id is an error.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

ID_COLUMNS = ("id", "student_id", "student", "username")


class RosterError(ValueError):
    pass


@dataclass(frozen=True)
class Student:
    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""

    @property
    def name(self) -> str:
        return " ".join(part for part in (self.first_name, self.last_name) if part)


def read_roster(path: Path) -> list[Student]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise RosterError(f"cannot read the roster {path}: {exc.strerror}") from None
    reader = csv.DictReader(line for line in text.splitlines() if line.strip())
    columns = {name.strip().lower(): name for name in (reader.fieldnames or [])}
    key = next((columns[c] for c in ID_COLUMNS if c in columns), None)
    if key is None:
        raise RosterError(f"{path}: the roster needs a column with the student's id, named one of {', '.join(ID_COLUMNS)}")

    def get(row, column):
        return (row.get(columns[column]) or "").strip() if column in columns else ""

    students, seen = [], set()
    for number, row in enumerate(reader, start=2):
        student_id = (row.get(key) or "").strip()
        if not student_id:
            continue
        if student_id in seen:
            raise RosterError(f"{path}:{number}: student {student_id!r} is listed twice")
        seen.add(student_id)
        first, last = get(row, "first_name"), get(row, "last_name")
        if not (first or last) and get(row, "name"):
            first, _, last = get(row, "name").partition(" ")
        students.append(Student(student_id, first, last, get(row, "email")))
    if not students:
        raise RosterError(f"{path}: the roster lists no student")
    return students

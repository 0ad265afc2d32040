"""A term's calendar: due dates per assignment, submission times, and the late policy.

An assignment is a chapter folder (``01_dynamo_core``), as in the nbgrader course. Due dates are
given as ``ASSIGNMENT=WHEN`` (or a bare ``WHEN`` for every assignment) where ``WHEN`` is an ISO
8601 time; a time without a zone is UTC. The late policy is one of

    none                      no penalty (the default)
    per-day:P                 P % of the score earned is taken off for each started day late
    cutoff:D                  zero when more than D late (``48h``, ``2d``, ``90m``); full marks before
    per-day:P,cutoff:D        both: the per-day penalty up to the cutoff, zero after it

A penalty is never more than the score it is taken from. Plain data, no nbgrader and no torch:
``grade-batch``, the nbgrader late-penalty plugin and the class records all use this one module.
"""

from __future__ import annotations

import csv
import datetime
import math
import re
from dataclasses import dataclass
from pathlib import Path

DAY_S = 86400.0
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhm])\s*$")
_UNIT_S = {"d": DAY_S, "h": 3600.0, "m": 60.0}
ALL = "*"


class TermError(ValueError):
    """A due date, a late policy or a manifest that cannot be read; the message says how to fix it."""


def parse_time(text: str, where: str = "time") -> datetime.datetime:
    """An aware UTC datetime from ISO 8601 text (``2025-03-01T23:59``, ``...+02:00``, ``...Z``), or
    from nbgrader's timestamp format (``2025-03-01 23:59:00.123456 UTC``)."""
    raw = str(text).strip()
    value = raw.replace("Z", "+00:00") if raw.endswith("Z") else raw
    value = re.sub(r"\s+UTC$", "+00:00", value)
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise TermError(f"{where}: {raw!r} is not a date and time; write it as ISO 8601, e.g. 2025-03-01T23:59:00+00:00") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.astimezone(datetime.timezone.utc)


def iso(moment: datetime.datetime | None) -> str:
    return moment.astimezone(datetime.timezone.utc).isoformat(timespec="seconds") if moment else ""


def parse_due(items) -> dict[str, str]:
    """``["01_dynamo_core=2025-03-01T23:59", "2025-04-01"]`` -> {assignment or "*": ISO time}."""
    due: dict[str, str] = {}
    for item in items or []:
        name, sep, when = str(item).partition("=")
        if not sep:
            name, when = ALL, item
        name = name.strip()
        if name != ALL and not re.fullmatch(r"\d\d_[a-z0-9_]+", name):
            raise TermError(f"--due {item}: {name!r} is not an assignment (a chapter folder such as 01_dynamo_core)")
        due[name] = iso(parse_time(when, f"--due {item}"))
    return due


def due_for(due: dict[str, str], assignment: str) -> datetime.datetime | None:
    text = due.get(assignment) or due.get(ALL)
    return parse_time(text) if text else None


def parse_duration(text: str, where: str) -> float:
    match = _DURATION.match(text)
    if not match:
        raise TermError(f"{where}: {text!r} is not a duration; write e.g. 48h, 2d or 90m")
    return float(match[1]) * _UNIT_S[match[2]]


@dataclass(frozen=True)
class LatePolicy:
    per_day: float = 0.0  # fraction of the earned score taken off per started day late
    cutoff_s: float | None = None  # seconds after the due date beyond which the score is zero

    @classmethod
    def parse(cls, text: str | None) -> "LatePolicy":
        text = (text or "none").strip()
        if text == "none":
            return cls()
        per_day, cutoff = 0.0, None
        for part in text.split(","):
            kind, _, value = part.strip().partition(":")
            where = f"late policy {text!r}"
            if kind == "per-day":
                try:
                    percent = float(value.rstrip("%"))
                except ValueError:
                    raise TermError(f"{where}: per-day takes a percentage, e.g. per-day:10") from None
                if not 0 < percent <= 100:
                    raise TermError(f"{where}: the per-day penalty must be more than 0 and at most 100 (%)")
                per_day = percent / 100
            elif kind == "cutoff":
                cutoff = parse_duration(value, where)
            else:
                raise TermError(f"{where}: use none, per-day:P, cutoff:D or per-day:P,cutoff:D (e.g. per-day:10,cutoff:72h)")
        return cls(per_day, cutoff)

    def text(self) -> str:
        parts = []
        if self.per_day:
            parts.append(f"per-day:{self.per_day * 100:g}")
        if self.cutoff_s is not None:
            parts.append(f"cutoff:{self.cutoff_s / 3600:g}h")
        return ",".join(parts) or "none"

    def describe(self) -> str:
        if self.text() == "none":
            return "no late penalty"
        out = []
        if self.per_day:
            out.append(f"{self.per_day * 100:g} % of the score off per started day late")
        if self.cutoff_s is not None:
            out.append(f"zero when more than {self.cutoff_s / 3600:g} h late")
        return "; ".join(out)

    def penalty(self, score: float, seconds_late: float) -> float:
        """Points taken off ``score`` for a submission ``seconds_late`` after its due date."""
        if seconds_late <= 0 or score <= 0:
            return 0.0
        if self.cutoff_s is not None and seconds_late > self.cutoff_s:
            return float(score)
        days = math.ceil(seconds_late / DAY_S)
        return round(min(float(score), score * self.per_day * days), 6)


def seconds_late(submitted: datetime.datetime | None, due: datetime.datetime | None) -> float:
    if submitted is None or due is None:
        return 0.0
    return max(0.0, (submitted - due).total_seconds())


# -- submission times ----------------------------------------------------------------------------

TIMESTAMP_FILE = "timestamp.txt"  # what nbgrader's submit and collect write beside a submission


def timestamp_in(folder: Path) -> datetime.datetime | None:
    """nbgrader's ``timestamp.txt`` in ``folder`` or the shallowest one below it, if any."""
    found = sorted((p for p in Path(folder).rglob(TIMESTAMP_FILE) if p.is_file() and not p.is_symlink()),
                   key=lambda p: len(p.parts))
    for path in found:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        if text:
            try:
                return parse_time(text, str(path))
            except TermError:
                continue
    return None


def read_manifest(path: Path) -> dict[tuple[str, str], datetime.datetime]:
    """A batch manifest: CSV with ``student`` and ``submitted_at`` columns, and optionally
    ``assignment`` or ``exercise`` (a row without either applies to all of that student's work).
    Returns {(student, assignment or exercise or "*"): time}."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise TermError(f"cannot read the manifest {path}: {exc.strerror}") from None
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or not {"student", "submitted_at"} <= set(rows[0]):
        raise TermError(f"{path}: the manifest needs the columns student and submitted_at (and optionally assignment or exercise)")
    times = {}
    for number, row in enumerate(rows, start=2):
        student = (row.get("student") or "").strip()
        if not student or not (row.get("submitted_at") or "").strip():
            continue
        scope = (row.get("exercise") or row.get("assignment") or "").strip() or ALL
        times[(student, scope)] = parse_time(row["submitted_at"], f"{path}:{number}")
    return times


def submitted_at(times: dict, student: str, exercise: str, assignment: str) -> datetime.datetime | None:
    for scope in (exercise, assignment, ALL):
        if (student, scope) in times:
            return times[(student, scope)]
    return None

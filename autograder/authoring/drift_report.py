"""``python -m autograder drift``: does the installed torch still do what the course says it does?

Two kinds of evidence, each a row of one table:
- every drift alarm (``autograder/sandbox/probe/drift.py``): a fact a lesson relies on that a torch
  release may change, observed on the installed torch;
- every exercise's starting file still fails for its declared reason: a structure-only grading of
  the starter generated from its master (not the learner's working copy), warm, as ``dev check``
  grades it.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from autograder.authoring.dev import starter_problem
from autograder.engine.grader import grade
from autograder.format.exercise import discover, starter_source


@dataclass
class Row:
    kind: str  # "alarm" or "starter"
    name: str
    holds: bool
    expected: str
    observed: str
    where: str  # lesson sections (alarms) or the exercise's lesson

    def as_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "holds": self.holds, "expected": self.expected,
                "observed": self.observed, "where": self.where}


def alarm_rows(costly: bool = True) -> list[Row]:
    from autograder.sandbox.probe.drift import check_all

    rows = []
    for reading in check_all(costly=costly):
        observed = reading.error or repr(reading.observed)
        rows.append(Row("alarm", reading.alarm.name, reading.holds, repr(reading.alarm.expects), observed,
                        "lesson " + ", ".join(reading.alarm.sections)))
    return rows


def starter_rows(ids=None, workers: int = 2, seed: int = 1234) -> list[Row]:
    exercises = [e for e in discover() if not ids or e.id in ids]

    def one(exercise, folder: Path) -> Row:
        path = folder / f"{exercise.id}.py"
        path.write_text(starter_source(exercise.master.read_text(encoding="utf-8"), exercise.id, exercise.title), encoding="utf-8")
        result = grade(exercise.id, path, seed=seed, warm=True, costly=False)
        problem = starter_problem(exercise, result)
        failed = [c.name for c in result.checks if c.status == "failed"]
        return Row("starter", exercise.id, problem is None, "fails " + ", ".join(exercise.starter_fails),
                   problem or ("fails " + ", ".join(failed)), exercise.rel(exercise.lesson))

    with tempfile.TemporaryDirectory(prefix="autograder-drift-") as holder, ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda e: one(e, Path(holder)), exercises))


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render(rows: list[Row], torch_version: str) -> str:
    width = max((len(r.name) for r in rows), default=10)
    lines = [f"drift report on torch {torch_version}", ""]
    for kind, title in (("alarm", "Drift alarms (facts the lessons rely on)"),
                        ("starter", "Starters (each still fails for its declared reason)")):
        chosen = [r for r in rows if r.kind == kind]
        if not chosen:
            continue
        lines.append(title)
        for row in chosen:
            status = "holds  " if row.holds else "CHANGED"
            detail = _short(row.expected) if row.holds else f"expected {_short(row.expected)}, observed {_short(row.observed)}"
            lines.append(f"  {status}  {row.name:<{width}}  {detail}  [{row.where}]")
        lines.append("")
    changed = [r for r in rows if not r.holds]
    alarms, starters = [r for r in rows if r.kind == "alarm"], [r for r in rows if r.kind == "starter"]
    counts = ([f"{sum(r.holds for r in alarms)}/{len(alarms)} alarms hold"] if alarms else []) + \
        ([f"{sum(r.holds for r in starters)}/{len(starters)} starters still fail for their reason"] if starters else [])
    lines.append(", ".join(counts) + (f"; {len(changed)} changed: torch differs from what the course says" if changed else ""))
    return "\n".join(lines)

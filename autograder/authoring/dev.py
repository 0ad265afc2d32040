"""Maintainer checks (``python -m autograder dev check``): is every exercise honest and every file current?"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from autograder.format.build import lesson_sections, stale_files, syllabus_ids, unexpected_files
from autograder.format.exercise import COSTLY_KINDS, ROOT, Exercise, discover
from autograder.engine.grader import grade
from autograder.format.result import FAILED, PASSED, SKIPPED


@dataclass
class Finding:
    exercise: str
    problem: str


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    graded: dict = field(default_factory=dict)  # id -> (starter result, solution result)

    @property
    def ok(self) -> bool:
        return not self.findings


def starter_problem(exercise: Exercise, result) -> str | None:
    """Why a starter's grade does not prove the exercise honest, or None."""
    if result.status != FAILED:
        return f"the starting file should fail the grader but its status is {result.status}: {result.message}"
    failed = {c.name for c in result.checks if c.status == FAILED}
    # A timing check skipped in a structure-only run proves nothing either way; the structural
    # reasons (the format requires at least one) must still fail.
    unmeasured = {c.name for c in result.checks if c.status == SKIPPED and c.kind in COSTLY_KINDS}
    missing = [name for name in exercise.starter_fails if name not in failed and name not in unmeasured]
    if missing:
        return f"the starting file should fail {missing} (its declared reason) but those passed"
    return None


def solution_problem(exercise: Exercise, result) -> str | None:
    if result.status != PASSED:
        failed = [f"{c.name}: {c.message}" for c in result.checks if c.status == FAILED]
        return f"the solution should pass but is {result.status}: {result.message} {failed}"
    return None


def static_findings(exercises: list[Exercise]) -> list[Finding]:
    findings = []
    for path in stale_files(exercises):
        findings.append(Finding("-", f"{path.relative_to(ROOT)} is stale or missing: run `python -m autograder build`"))
    for path in unexpected_files(exercises):
        findings.append(Finding("-", f"{path.relative_to(ROOT)} is not generated from any master in solutions/"))
    known = {sid for sid, _, _ in syllabus_ids()}
    sections = lesson_sections()
    for e in exercises:
        for sid in e.syllabus + [e.section] + [c.section for c in e.checks]:
            if sid not in known:
                findings.append(Finding(e.id, f"syllabus ID {sid} is not in SYLLABUS.md"))
        if not e.lesson.is_file():
            findings.append(Finding(e.id, f"its lesson {e.rel(e.lesson)} does not exist"))
        elif e.id not in e.lesson.read_text(encoding="utf-8"):
            findings.append(Finding(e.id, f"its lesson {e.rel(e.lesson)} never mentions it; link it from the lesson"))
        for sid in {e.section, *e.syllabus}:
            if sid in known and sections.get(sid) not in (None, e.rel(e.lesson)):
                findings.append(Finding(e.id, f"section {sid} is taught in {sections[sid]}, not in its chapter's lesson"))
    return findings


def check(ids: list[str] | None = None, workers: int = 2, progress=None) -> Report:
    exercises = discover()
    report = Report(findings=static_findings(exercises))
    chosen = [e for e in exercises if not ids or e.id in ids]

    def both(exercise: Exercise):
        # A fixed seed keeps maintainer runs reproducible; learners' gradings draw a new one each time.
        starter = grade(exercise.id, exercise.starter, seed=1234, warm=True)
        solution = grade(exercise.id, exercise.master, seed=1234, warm=True)
        return exercise, starter, solution

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for exercise, starter, solution in pool.map(both, chosen):
            report.graded[exercise.id] = (starter, solution)
            for problem in (starter_problem(exercise, starter), solution_problem(exercise, solution)):
                if problem:
                    report.findings.append(Finding(exercise.id, problem))
            if progress:
                progress(exercise, starter, solution)
    return report

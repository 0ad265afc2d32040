"""The grade: one Result per grading, one CheckResult per declared check. Plain data, no torch."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"


@dataclass
class CheckResult:
    name: str
    kind: str
    status: str  # passed / failed / skipped
    score: int
    max_score: int
    message: str
    section: str = ""  # lesson section that teaches the fix

    @classmethod
    def outcome(cls, spec, ok: bool, message: str) -> "CheckResult":
        return cls(spec.name, spec.kind, PASSED if ok else FAILED, spec.points if ok else 0, spec.points, message, spec.section)

    @classmethod
    def skipped(cls, spec, message: str) -> "CheckResult":
        return cls(spec.name, spec.kind, SKIPPED, 0, spec.points, message, spec.section)

    @classmethod
    def not_judged(cls, spec, why: str) -> "CheckResult":
        """A timing the grader could not trust: skipped, and the whole grade becomes an error of the
        grader (``settle``), neither the learner's pass nor their failure."""
        return cls(spec.name, spec.kind, SKIPPED, 0, spec.points, f"{NOT_JUDGED}: {why}", spec.section)

    @property
    def unjudged(self) -> bool:
        return self.status == SKIPPED and self.message.startswith(NOT_JUDGED)


NOT_JUDGED = "Not judged, a fault of the grader's timing and not of your file"


@dataclass
class Result:
    exercise: str
    status: str  # passed / failed / error
    score: int
    max_score: int
    checks: list[CheckResult]
    measurements: dict
    message: str = ""  # the headline for the learner: what went wrong and what to do
    submission: str = ""
    torch: str = ""
    device: str = ""
    seed: int | None = None
    duration_s: float = 0.0
    lesson: str = ""
    output_tail: str = ""  # last lines the submission printed (for the learner, never for the verdict)
    extra: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == FAILED]

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        data = dict(data)
        data["checks"] = [CheckResult(**c) for c in data.get("checks", [])]
        return cls(**data)


def short_path(path: str) -> str:
    """A path as the learner knows it: from exercises/ or solutions/ on, else unchanged."""
    for marker in ("/exercises/", "/solutions/"):
        if marker in path:
            return marker.strip("/") + "/" + path.split(marker, 1)[1]
    return path


def settle(result: Result) -> Result:
    """Derive status and score from the checks: passed only when no check failed.

    A check worth 0 points is a *gate*: it awards nothing, and while it fails the grade earns
    nothing either, so that status and score agree (never "failed 3/3"); the message says so.
    """
    result.score = sum(c.score for c in result.checks)
    result.max_score = sum(c.max_score for c in result.checks) or result.max_score
    if result.status != ERROR:
        result.status = FAILED if any(c.status == FAILED for c in result.checks) else PASSED
    unjudged = [c for c in result.checks if c.unjudged]
    if result.status == PASSED and unjudged:
        # Passing would give a timing the grader could not read the benefit of the doubt, failing would
        # blame the learner for the machine: the grade is the grader's error, to be graded again.
        result.status, result.score = ERROR, 0
        result.extra.setdefault("cause", "machine")
        result.message = (f"`{unjudged[0].name}`: {unjudged[0].message} Grade again, on a quieter machine if you can; "
                          "nothing in your file needs to change for this.")
    gates = [c for c in result.checks if c.status == FAILED and c.max_score == 0]
    if result.status == FAILED and gates:
        for check in result.checks:
            check.score = 0
        result.score = 0
        names = ", ".join(f"`{gate.name}`" for gate in gates)
        result.message = (f"Not passed, 0 points: {names} failed, and a check worth no points of its own is a gate: while it "
                          f"fails, the grade earns no points. {gates[0].message}")
    return result

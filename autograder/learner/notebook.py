"""Checks from inside a lesson notebook: the same out-of-process grading, shown compactly.

    from autograder.learner.notebook import check, hint
    check("breaks_checkpoint")   # grades exercises/01_dynamo_core/breaks_checkpoint.py as saved
"""

from __future__ import annotations

from autograder.learner import progress
from autograder.format.exercise import load, requirements_block
from autograder.engine.grader import grade
from autograder.learner.report import render


class Verdict:
    """A Result that a notebook shows as the readable report, not as a dataclass dump."""

    def __init__(self, result):
        self.result = result

    def __repr__(self) -> str:
        return render(self.result, colour=False)

    @property
    def passed(self) -> bool:
        return self.result.passed


def check(exercise_id: str, path=None, seed: int | None = None) -> Verdict:
    """Grade the saved working copy (or ``path``) in a fresh process; the cell shows the verdict."""
    exercise = load(exercise_id)
    result = grade(exercise_id, path, seed=seed, warm=True)  # the kernel keeps the warm worker between checks
    if path is None:
        progress.record_result(exercise.id, result.passed, result.score, result.max_score)
    return Verdict(result)


def hint(exercise_id: str) -> str:
    """Print the next hint of the ladder (each call shows one more)."""
    exercise = load(exercise_id)
    level = progress.next_hint_level(exercise.id, len(exercise.hints))
    text = f"Hint {level + 1}/{len(exercise.hints)}: {exercise.hints[level]}"
    if exercise.requirements:  # what the fix must do, from the master's header
        text += "\n\n" + requirements_block([r.text for r in exercise.requirements])
    print(text)
    return text

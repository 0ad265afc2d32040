"""Every exercise is honest: its starting file fails for the declared reason, its solution passes.

This is the same proof as ``python -m autograder dev check``, one test per exercise and side.
"""

import pytest

from autograder.authoring import dev
from autograder.format.build import stale_files, unexpected_files
from autograder.format.exercise import discover
from autograder.engine.grader import grade

EXERCISES = discover()


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_starter_fails_for_its_declared_reason(exercise, graded):
    result = graded(exercise.id, "starter")
    assert dev.starter_problem(exercise, result) is None, dev.starter_problem(exercise, result)


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_solution_passes(exercise, graded):
    result = graded(exercise.id, "master")
    assert dev.solution_problem(exercise, result) is None, dev.solution_problem(exercise, result)
    assert result.score == result.max_score == exercise.max_score


@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.id for e in EXERCISES])
def test_solution_passes_on_other_hidden_inputs(exercise):
    """A new seed draws new inputs; the reference solution must not depend on the seed."""
    assert grade(exercise.id, exercise.master, seed=987654, costly=False).passed


def test_generated_files_are_current():
    stale = stale_files(EXERCISES)
    assert not stale, f"run `python -m autograder build`: stale {stale}"
    assert not unexpected_files(EXERCISES)


def test_static_course_checks_hold():
    """Lesson links, syllabus IDs, sections: everything dev check verifies without grading."""
    assert dev.static_findings(EXERCISES) == []


def test_chapter_one_has_at_least_five_exercises_covering_its_ids():
    chapter = [e for e in EXERCISES if e.chapter_number == 1]
    assert len(chapter) >= 5
    covered = {sid for e in chapter for sid in e.syllabus}
    assert {"1.1", "1.2", "1.3", "1.4", "1.5"} <= covered

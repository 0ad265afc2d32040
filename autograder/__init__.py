"""The course's autograder: ``grade(exercise_id, path)`` grades a submission in a fresh process.

    python -m autograder list            # the exercises
    python -m autograder check ID        # grade your working copy, with explanations
    python -m autograder grade ID PATH --json
"""

from .exercise import Exercise, ExerciseFormatError, discover, load
from .grader import grade
from .result import CheckResult, Result

__all__ = ["grade", "Result", "CheckResult", "Exercise", "ExerciseFormatError", "discover", "load"]

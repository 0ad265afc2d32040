"""The course's autograder: ``grade(exercise_id, path)`` grades one file and returns a Result.

The package layout is the architecture:
- ``format``: the exercise format (masters, generated files, the submission loader, the static
  policy) and the result; no torch;
- ``sandbox``: what runs beside learner code (the grading child, its limits and identity, the
  probe that measures);
- ``checks``: each check kind, turning measurements into a verdict;
- ``engine``: ``grade()``, the child runner and the warm worker pool;
- ``learner``: what faces learners (CLI, notebook check, reports, hints, pictures, progress);
- ``classroom``: nbgrader, Gradescope, batch grading, JUnit;
- ``authoring``: ``dev check`` and ``dev new`` for exercise authors;
- ``lab``: the toolkit lessons and masters use to count graphs, breaks and guards.
"""

from autograder.engine.grader import grade
from autograder.format.exercise import Exercise, ExerciseFormatError, discover, load
from autograder.format.result import CheckResult, Result

__all__ = ["grade", "Result", "CheckResult", "Exercise", "ExerciseFormatError", "discover", "load", "check", "hint"]


def __getattr__(name):
    # check() and hint() for notebooks: `from autograder import check, hint`. Imported on first use,
    # so that `import autograder` stays light for tools that only list or grade.
    if name in ("check", "hint"):
        from autograder.learner import notebook

        return getattr(notebook, name)
    raise AttributeError(name)

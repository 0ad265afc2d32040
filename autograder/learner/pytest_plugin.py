"""pytest plugin: ``pytest --autograder`` grades every exercise's working copy as one test item each.

``--autograder-solutions`` grades the reference masters instead (what CI proves). Without either
option the plugin collects nothing, so it never interferes with ordinary test runs.
"""

from __future__ import annotations

import pytest

from autograder.format.exercise import discover
from autograder.engine.grader import grade
from autograder.learner import workspace
from autograder.learner.report import render


def pytest_addoption(parser):
    group = parser.getgroup("autograder", "torch.compile course exercises")
    group.addoption("--autograder", action="store_true", help="grade your copy of every exercise (workspace/exercises/)")
    group.addoption("--autograder-solutions", action="store_true", help="grade the reference solutions instead")


class ExerciseFailed(Exception):
    def __init__(self, result):
        super().__init__(result.message)
        self.result = result


class ExerciseItem(pytest.Item):
    def __init__(self, *, exercise, use_master: bool, **kwargs):
        super().__init__(**kwargs)
        self.exercise = exercise
        self.use_master = use_master
        self.add_marker(pytest.mark.autograder)

    def runtest(self):
        path = self.exercise.master if self.use_master else workspace.ensure_copy(self.exercise)
        result = grade(self.exercise.id, path)
        if not result.passed:
            raise ExerciseFailed(result)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ExerciseFailed):
            return render(excinfo.value.result)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"exercise {self.exercise.id}"


class ExerciseCollector(pytest.Collector):
    def __init__(self, *, use_master: bool, **kwargs):
        super().__init__(**kwargs)
        self.use_master = use_master

    def collect(self):
        for exercise in discover():
            yield ExerciseItem.from_parent(self, name=exercise.id, exercise=exercise, use_master=self.use_master)


def pytest_configure(config):
    config.addinivalue_line("markers", "autograder: an exercise graded by the course's autograder")


@pytest.hookimpl
def pytest_collection_modifyitems(session, config, items):
    use_master = config.getoption("autograder_solutions")
    if not (config.getoption("autograder") or use_master):
        return
    collector = ExerciseCollector.from_parent(session, name="exercises", use_master=use_master)
    # Grade exercises instead of the project's own tests when asked to.
    items[:] = list(collector.collect())

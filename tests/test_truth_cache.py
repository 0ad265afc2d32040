"""Measured prediction truths are kept for later gradings (engine/truth_cache.py): read back only
for what was measured from the same master, parameters and code, in a folder that the grading's own
user can neither read nor write."""

import os

import pytest

from autograder.engine import truth_cache
from autograder.engine.grader import grade
from autograder.format.exercise import load
from autograder.sandbox import identity

ROOT_ONLY = pytest.mark.skipif(not identity._running_as_root(), reason="the cache is kept only by a root grader")


def _cache(tmp_path, master_text="def truth(): pass\n"):
    master = tmp_path / "master.py"
    master.write_text(master_text)
    folder = tmp_path / "truths"
    folder.mkdir(mode=0o700, exist_ok=True)
    return truth_cache.TruthCache(str(folder), str(master))


def test_a_truth_is_measured_once_and_read_back_only_for_the_same_master_and_parameters(tmp_path):
    runs = []

    def measure(value):
        runs.append(value)
        return {"frames": value, "names": ["a", "b"]}

    first = _cache(tmp_path)
    assert first.remember("count", {"depth": 3}, lambda: measure(3)) == {"frames": 3, "names": ["a", "b"]}
    again = _cache(tmp_path)
    assert again.remember("count", {"depth": 3}, lambda: measure(99)) == {"frames": 3, "names": ["a", "b"]}
    assert (again.hits, again.misses, runs) == (1, 0, [3])
    assert again.remember("count", {"depth": 4}, lambda: measure(4))["frames"] == 4, "other parameters: measured"
    assert again.remember("other", {"depth": 3}, lambda: measure(5))["frames"] == 5, "another truth: measured"
    changed = _cache(tmp_path, "def truth(): return 1\n")
    assert changed.remember("count", {"depth": 3}, lambda: measure(6))["frames"] == 6, "a changed master: measured"
    assert runs == [3, 4, 5, 6]


def test_a_damaged_entry_is_measured_again_and_rewritten(tmp_path):
    cache = _cache(tmp_path)
    cache.remember("count", None, lambda: 7)
    for name in os.listdir(cache.folder):
        with open(os.path.join(cache.folder, name), "wb") as handle:
            handle.write(b"not a frame")
    again = _cache(tmp_path)
    assert again.remember("count", None, lambda: 8) == 8 and again.misses == 1
    assert _cache(tmp_path).remember("count", None, lambda: 9) == 8


def test_without_a_folder_nothing_is_kept(tmp_path, monkeypatch):
    cache = truth_cache.TruthCache(None, str(tmp_path / "absent.py"))
    assert [cache.remember("count", None, lambda: n) for n in (1, 2)] == [1, 2]
    exercise = load("predict_nested")
    assert truth_cache.open_cache(False, exercise, str(exercise.master)).folder is None, "the judge said no drop"
    monkeypatch.setenv(truth_cache.SWITCH, "0")
    assert truth_cache.open_cache(True, exercise, str(exercise.master)).folder is None


@ROOT_ONLY
def test_the_grading_user_can_neither_read_nor_plant_a_truth():
    folder = identity.root_only_folder(truth_cache.FOLDER_NAME)
    assert folder is not None
    stat = os.stat(folder)
    assert stat.st_uid == 0 and not stat.st_mode & 0o077
    pool = identity.allocate()
    try:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setgid(pool.gid)
                os.setuid(pool.uid)
                try:
                    os.listdir(folder)
                    code |= 1
                except PermissionError:
                    pass
                try:
                    with open(os.path.join(folder, "planted"), "wb") as handle:
                        handle.write(b"x")
                    code |= 2
                except PermissionError:
                    pass
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, "1: listed the folder, 2: wrote into it"
    finally:
        identity.release(pool)


@ROOT_ONLY
@pytest.mark.slow
def test_a_kept_truth_gives_the_same_verdicts_and_skips_the_experiment():
    exercise = load("predict_nested")
    fresh = grade("predict_nested", exercise.master, seed=4242, warm=True)
    kept = grade("predict_nested", exercise.master, seed=4242, warm=True)
    starter = grade("predict_nested", None, seed=4242, warm=True)
    assert fresh.status == kept.status == "passed" and starter.status == "failed"
    measured = fresh.extra["truths"]["kept"] + fresh.extra["truths"]["measured"]
    assert kept.extra["truths"] == {"kept": measured, "measured": 0}
    assert starter.extra["truths"]["measured"] == 0
    assert [c.status for c in kept.checks] == [c.status for c in fresh.checks]
    assert [c.status for c in starter.checks if c.kind == "answers"] == ["failed"] * len(
        [c for c in starter.checks if c.kind == "answers"]), "a kept truth does not make a wrong prediction right"

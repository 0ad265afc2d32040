"""Measured prediction truths are kept for later gradings (engine/kept.py): read back only
for what was measured from the same master, parameters and code, in a folder that the grading's own
user can neither read nor write."""

import os

import pytest

from autograder.engine import kept
from autograder.engine import kept as kept_module
from autograder.engine.grader import grade
from autograder.format.exercise import load
from autograder.sandbox import identity, python_headers

ROOT_ONLY = pytest.mark.skipif(not identity._running_as_root(), reason="the cache is kept only by a root grader")
# Where some grading keeps root (here: Python's headers are under /root, so Inductor gradings do),
# nothing is kept, and the gradings below cannot show a kept run.
KEPT_HERE = pytest.mark.skipif(identity.some_grading_keeps_root() is not None,
                               reason=f"nothing is kept on this machine: {identity.some_grading_keeps_root()}")


def _cache(tmp_path, master_text="def truth(): pass\n"):
    master = tmp_path / "master.py"
    master.write_text(master_text)
    folder = tmp_path / "truths"
    folder.mkdir(mode=0o700, exist_ok=True)
    return kept.TruthCache(str(folder), str(master))


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
    cache = kept.TruthCache(None, str(tmp_path / "absent.py"))
    assert [cache.remember("count", None, lambda: n) for n in (1, 2)] == [1, 2]
    exercise = load("predict_nested")
    assert kept.open_cache(False, exercise, str(exercise.master)).folder is None, "the judge said no drop"
    monkeypatch.setenv(kept.SWITCH, "0")
    assert kept.open_cache(True, exercise, str(exercise.master)).folder is None


@ROOT_ONLY
def test_the_grading_user_can_neither_read_nor_plant_a_truth():
    folder = identity.root_only_folder(kept.FOLDER_NAME)
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
@KEPT_HERE
@pytest.mark.slow
def test_a_kept_truth_gives_the_same_verdicts_and_skips_the_experiment():
    exercise = load("predict_nested")
    def without_the_kept_reference_run():  # so that the reference child runs and reads the truths back
        store = kept_module.ReferenceStore.for_grading(str(exercise.master), 4242, True)
        if store is not None and os.path.exists(store.path):
            os.unlink(store.path)

    without_the_kept_reference_run()
    fresh = grade("predict_nested", exercise.master, seed=4242, warm=True)
    without_the_kept_reference_run()
    kept = grade("predict_nested", exercise.master, seed=4242, warm=True)
    without_the_kept_reference_run()
    starter = grade("predict_nested", None, seed=4242, warm=True)
    assert fresh.status == kept.status == "passed" and starter.status == "failed"
    measured = fresh.extra["truths"]["kept"] + fresh.extra["truths"]["measured"]
    assert kept.extra["truths"] == {"kept": measured, "measured": 0}
    assert starter.extra["truths"]["measured"] == 0
    assert [c.status for c in kept.checks] == [c.status for c in fresh.checks]
    assert [c.status for c in starter.checks if c.kind == "answers"] == ["failed"] * len(
        [c for c in starter.checks if c.kind == "answers"]), "a kept truth does not make a wrong prediction right"


def test_a_reference_run_that_wrote_files_for_the_learner_is_not_kept(tmp_path):
    assert not kept.wrote_for_the_learner(str(tmp_path))
    (tmp_path / "inputs.pt").write_bytes(b"x")  # written by root, as the reference child writes
    assert kept.wrote_for_the_learner(str(tmp_path)) == identity._running_as_root()
    assert kept.wrote_for_the_learner(str(tmp_path / "gone")), "an unreadable scratch folder: not kept"


def test_kept_frames_are_read_back_whole_and_a_torn_entry_is_refused(tmp_path):
    store = kept.ReferenceStore(str(tmp_path), "k")
    store.keep(b"learner-frame", b"judge-frame")
    assert kept.ReferenceStore.read(store.open()) == (b"learner-frame", b"judge-frame")
    (tmp_path / "k").write_bytes((100).to_bytes(8, "big") + b"short")
    assert kept.ReferenceStore.read(store.open()) is None
    assert kept.ReferenceStore(str(tmp_path), "absent").open() is None


@ROOT_ONLY
@KEPT_HERE
@pytest.mark.slow
def test_a_seed_the_caller_chose_keeps_the_reference_run_and_a_drawn_seed_does_not():
    exercise = load("breaks_checkpoint")
    first = grade("breaks_checkpoint", exercise.master, seed=90210, warm=True)
    again = grade("breaks_checkpoint", exercise.master, seed=90210, warm=True)
    starter = grade("breaks_checkpoint", None, seed=90210, warm=True)
    assert again.extra.get("reference_kept") and starter.extra.get("reference_kept")
    assert first.status == again.status == "passed" and starter.status == "failed"
    assert [(c.name, c.status, c.score) for c in again.checks] == [(c.name, c.status, c.score) for c in first.checks]
    drawn = grade("breaks_checkpoint", exercise.master, warm=True)
    assert not drawn.extra.get("reference_kept")
    store = kept.ReferenceStore.for_grading(str(exercise.master), drawn.seed, True)
    assert store is not None and not os.path.exists(store.path), "a drawn seed never comes again: nothing is kept for it"


@ROOT_ONLY
def test_the_grading_user_cannot_reach_the_kept_reference_runs():
    folder = identity.root_only_folder(kept.REFERENCE_FOLDER_NAME)
    assert folder is not None and os.stat(folder).st_uid == 0 and not os.stat(folder).st_mode & 0o077


def test_nothing_is_kept_where_some_grading_keeps_root(monkeypatch):
    """A submission graded as root could read a kept truth, or plant one from C++ (torch.save): one
    such grading anywhere on the machine turns the stores off for every grading."""
    exercise = load("predict_nested")
    monkeypatch.setattr(identity, "_running_as_root", lambda: True)
    monkeypatch.setattr(identity, "drop_wanted", lambda: True)
    monkeypatch.setattr(identity, "packages_block_the_drop", lambda: None)
    monkeypatch.setattr(identity, "_enterable_by_others", lambda folder: True)
    monkeypatch.setattr(python_headers, "readable_copy", lambda: None)  # Python's headers closed to others, no copy made
    assert "Inductor" in identity.some_grading_keeps_root()
    assert kept.open_cache(True, exercise, str(exercise.master)).folder is None
    assert kept.ReferenceStore.for_grading(str(exercise.master), 1, True) is None
    monkeypatch.setattr(identity, "drop_wanted", lambda: False)
    assert identity.some_grading_keeps_root() == f"{identity.DROP_SWITCH}=0"
    monkeypatch.setattr(identity, "drop_wanted", lambda: True)
    monkeypatch.setattr(python_headers, "readable_copy", lambda: "/public/python-headers")
    monkeypatch.setattr(identity, "root_only_folder", lambda name: None)
    assert identity.some_grading_keeps_root() is None
    assert kept.open_cache(True, exercise, str(exercise.master)).folder is None, "no root-only folder: nothing kept"
    monkeypatch.setattr(identity, "root_only_folder", lambda name: "/nonexistent-root-only")  # every grading drops
    assert kept.ReferenceStore.for_grading(str(exercise.master), 1, True).folder == "/nonexistent-root-only"
    assert kept.ReferenceStore.for_grading(str(exercise.master), 1, False) is None, "no seed of the caller's: nothing kept"


"""The warm worker (zygote.py) gives the same verdicts as a cold child and leaks nothing between gradings."""

import pytest

from autograder.engine.grader import grade
from conftest import ROOT

STARTER = ROOT / "exercises/01_dynamo_core/recompile_global_log.py"


def test_warm_and_cold_agree_on_verdicts_and_measurements():
    for path in (STARTER, ROOT / "solutions/01_dynamo_core/recompile_global_log.py"):
        cold = grade("recompile_global_log", path, seed=5, warm=False)
        warm = grade("recompile_global_log", path, seed=5, warm=True)
        assert (cold.status, cold.score) == (warm.status, warm.score)
        for key in ("graphs", "recompiles", "compiled_calls", "graph_breaks"):
            assert cold.measurements[key] == warm.measurements[key], key


def test_nothing_one_submission_changes_reaches_the_next(submission):
    baseline = grade("recompile_global_log", STARTER, seed=5, warm=True)
    polluter = submission(STARTER.read_text() + (
        "\nimport builtins, torch._dynamo\n"
        "torch._dynamo.config.recompile_limit = 1000\n"
        "torch.compiler.set_stance('force_eager')\n"
        "builtins.POLLUTED = True\n"
        "import autograder.checks.core\nautograder.checks.core.RUNNERS.clear()\n"))
    assert not grade("recompile_global_log", polluter, seed=5, warm=True).passed
    after = grade("recompile_global_log", STARTER, seed=5, warm=True)
    # Had the raised recompile limit leaked, all 12 calls would have run compiled code.
    assert after.measurements["compiled_calls"] == baseline.measurements["compiled_calls"] == 8
    assert after.measurements["recompiles"] == baseline.measurements["recompiles"] == 7
    probe = submission("import builtins\nassert not hasattr(builtins, 'POLLUTED'), 'leaked'\n" + STARTER.read_text())
    assert grade("recompile_global_log", probe, seed=5, warm=True).status == "failed"  # graded, not an import error



def test_a_submission_cannot_kill_the_warm_worker_or_its_judge(submission, monkeypatch):
    # The learner child is process 1 of a PID namespace of its own (as root) and runs as a user of its
    # own: the judge and the worker are out of its reach. Elsewhere the worker restarts after a kill.
    from autograder.engine import grader, zygote

    for defence in ("policy", "audit"):  # the worker's own robustness: the layers that refuse this first are off
        monkeypatch.setitem(grader.DEFENCES, defence, False)
    killer = submission("import os, signal\nfor target in (os.getppid(), -1):\n    try:\n        os.kill(target, signal.SIGKILL)\n"
                        "    except OSError:\n        pass\n"
                        "import torch, torch.nn.functional as F\n\ndef encode(x, weight):\n    h = torch.tanh(x @ weight)\n"
                        "    return F.normalize(h, dim=-1), h\n")
    result = grade("breaks_checkpoint", killer, seed=3, warm=True)
    contained = any("PID namespace" in item for item in result.extra.get("sandbox", []))
    if contained:  # nothing was killed: the fix is graded as the fix it is (the policy and the hook, off here, refuse os.kill)
        assert result.passed, result.message
        assert all(runner._process is not None and runner._process.poll() is None for runner in zygote.shared_runner()._all)
    else:
        assert result.status == "error" and result.score == 0
    assert grade("breaks_checkpoint", ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py", seed=3, warm=True).passed


LEARN = """
import json, sys, torch
sys.path.insert(0, {root!r})
from autograder.engine import zygote
from torch._dynamo.utils import counters
learner = zygote._ModuleLearner()
assert learner.wait_for_report()
names = learner.imported
compiled_here = {{k: dict(v) for k, v in counters.items() if v}}
before = set(sys.modules)
def other(x):
    y = x.tanh() * 3
    if y.sum() > 0:
        y = y - 1
    return y.exp()
compiled = torch.compile(other, backend="eager")
compiled(torch.randn(4)); compiled(torch.randn(5))
print(json.dumps({{"imported": names, "compiled_here": compiled_here, "still_new": sorted(set(sys.modules) - before)}}))
"""


def test_the_warm_worker_takes_modules_from_its_warm_up_child_and_no_compiled_state():
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LEARN.format(root=str(ROOT))], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(report["imported"]) > 100 and any(name.startswith("torch._functorch") for name in report["imported"])
    assert report["compiled_here"] == {}, "the zygote itself must never compile: only its throwaway child does"
    # What compiling imports is there already: a grading's first compile has (almost) nothing left to import.
    assert len(report["still_new"]) < 10, report["still_new"]


def test_a_warm_up_child_that_never_reports_is_killed_and_nothing_is_imported():
    import subprocess
    import sys

    script = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
              "import autograder.sandbox.probe as probe\n"
              "probe.warm_up_compiler = lambda: time.sleep(600)  # a warm-up that hangs\n"
              "from autograder.engine import zygote\n"
              "zygote._ModuleLearner.LIMIT_S = 2.0\n"
              "started = time.monotonic()\n"
              "learner = zygote._ModuleLearner()\n"
              "assert learner.wait_for_report() and learner.imported == []\n"
              "import os\n"
              "try:\n"
              "    os.kill(learner.pid, 0)\n"
              "    raise SystemExit('the warm-up child is still alive')\n"
              "except ProcessLookupError:\n"
              "    pass\n"
              "print(round(time.monotonic() - started, 1))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.strip()) < 10


def test_a_warm_worker_that_imported_everything_first_agrees_with_a_cold_child(monkeypatch):
    from autograder.engine import zygote

    monkeypatch.setenv("AUTOGRADER_PREIMPORT", "first")
    pool = zygote.WarmPool(1)
    previous = zygote.install(pool)
    try:
        for exercise, path in (("recompile_global_log", STARTER),
                               ("logs_breaks_guards", ROOT / "solutions/07_observability/logs_breaks_guards.py"),
                               ("ablate_stage", ROOT / "solutions/08_reporting_issues/ablate_stage.py")):
            cold = grade(exercise, path, seed=5, warm=False)
            warm = grade(exercise, path, seed=5, warm=True)
            assert (cold.status, cold.score) == (warm.status, warm.score), exercise
            assert [c.status for c in cold.checks] == [c.status for c in warm.checks], exercise
            for key in ("graphs", "recompiles", "compiled_calls", "graph_breaks"):
                assert cold.measurements[key] == warm.measurements[key], (exercise, key)
    finally:
        zygote.install(previous)
        pool.close()



def _sweep_keeps_the_kept_child() -> int:
    """In a process of its own (the sweep kills every other descendant): 0 when it holds, else 1."""
    import os
    import time

    from autograder.sandbox import processes

    kept = os.fork()
    if kept == 0:
        os._exit(0)
    swept = os.fork()
    if swept == 0:
        time.sleep(60)
        os._exit(0)
    time.sleep(0.2)  # the kept child has ended: a zombie, as the warm-up child is once it has reported
    if processes.kill_descendants(keep={kept}) < 1:
        return 1
    try:
        pid, status = os.waitpid(kept, 0)  # ChildProcessError before the fix
    except ChildProcessError:
        return 1
    try:
        os.waitpid(swept, os.WNOHANG)
        return 1  # the swept child was left uncollected
    except ChildProcessError:
        return 0 if pid == kept and os.waitstatus_to_exitcode(status) == 0 else 1


def test_a_grading_that_ends_after_the_warm_up_child_leaves_it_to_the_zygote():
    """The zygote's end-of-grading sweep (``kill_descendants(keep=...)``) must not collect the warm-up
    child it keeps: when that child had already ended, the zygote's own wait for it failed later
    (ChildProcessError), the zygote died mid-grading, and the pool restarted it (a crash reported
    as the grader's, and a new warm-up child the attack corpus took for a leftover)."""
    import os

    sweeper = os.fork()
    if sweeper == 0:
        code = 2  # it raised
        try:
            code = _sweep_keeps_the_kept_child()
        finally:
            os._exit(code)
    _, status = os.waitpid(sweeper, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _learning_children(pool) -> list[int]:
    """The pids of the processes a started zygote has forked besides gradings (its warm-up child)."""
    from autograder.classroom.batch import _descendants

    return [pid for runner in pool._all for pid in _descendants(runner._process.pid)]


def test_learned_module_names_are_read_back_only_as_a_list_of_module_names(monkeypatch, tmp_path):
    from autograder.engine import kept
    from autograder.sandbox import identity

    monkeypatch.setattr(kept, "_learned_modules_path", lambda: str(tmp_path / "names"))
    assert kept.learned_modules() is None  # nothing kept yet: the worker learns
    kept.keep_learned_modules(["torch._functorch.aot_autograd", "networkx"])
    assert kept.learned_modules() == ["torch._functorch.aot_autograd", "networkx"]
    for bad in (b"not json", b'"torch"', b'["torch", "os; import antigravity"]', b'["torch", 3]', b"[]", b'[".torch"]'):
        (tmp_path / "names").write_bytes(bad)
        assert kept.learned_modules() is None, bad  # learned again, never imported
    (tmp_path / "names").unlink()
    (tmp_path / "names").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_bytes(b'["networkx"]')
    assert kept.learned_modules() is None  # never read through a link
    monkeypatch.undo()
    monkeypatch.setattr(identity, "some_grading_keeps_root", lambda: "the grader is not root")
    assert kept._learned_modules_path() is None  # kept only where a submission can neither read nor plant it


def test_a_worker_started_after_one_that_learned_imports_the_names_and_learns_nothing(monkeypatch):
    """The names a zygote learned are kept (engine.kept.learned_modules): the next zygote imports
    them before it is ready and forks no warm-up child, so its first gradings neither import them
    each nor share the CPU with one."""
    import os
    import time

    from autograder.engine import kept, zygote

    path = kept._learned_modules_path()
    if path is None:
        pytest.skip("this machine keeps nothing (the grader is not root, or some grading keeps root)")
    monkeypatch.setenv("AUTOGRADER_PREIMPORT", "background")
    if os.path.exists(path):
        os.unlink(path)
    first = zygote.WarmPool(1)
    try:
        first.start()
        assert _learning_children(first), "a zygote with nothing kept learns in a child of its own"
        solution = ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py"
        deadline = time.monotonic() + 180
        while kept.learned_modules() is None and time.monotonic() < deadline:
            first.run({"master": str(solution), "seed": 1, "seed_given": False, "costly": False,  # idle turns let it finish
                       "source": solution.read_text(), "filename": str(solution), "audit": True}, 60)
            time.sleep(1)
        names = kept.learned_modules()
        assert names and any(name.startswith("torch._functorch") for name in names)
    finally:
        first.close()
    second = zygote.WarmPool(1)
    previous = zygote.install(second)
    try:
        second.start()
        assert not _learning_children(second)
        assert grade("breaks_checkpoint", ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py", seed=3, warm=True).passed
    finally:
        zygote.install(previous)
        second.close()

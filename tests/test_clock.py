"""A grading's limit does not count the time its processes waited for a CPU (engine/clock.py).

The machine is made busy the same way every time: this test's process and a number of busy loops
share one CPU, so a grading there gets about one part in (loops + 1) of it."""

import contextlib
import os
import subprocess
import sys
import time

import pytest

from autograder.engine import clock as clock_module
from autograder.engine.clock import Clock
from autograder.engine.grader import grade
from conftest import ROOT

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="the run-queue wait is read from Linux's /proc")

SOLUTION = ROOT / "solutions/01_dynamo_core/trace_tolist.py"


@contextlib.contextmanager
def busy_cpu(hogs: int):
    """This process and ``hogs`` busy loops on one CPU (the grading children inherit the affinity)."""
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    loop = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass\n"
    # Each loop in a session of its own: where the kernel groups tasks by session for the scheduler
    # (sched_autogroup), the learner child (a session of its own too) would otherwise get half the
    # CPU whatever the number of loops, and where it does not, each task gets its share anyway.
    loops = [subprocess.Popen([sys.executable, "-c", loop], start_new_session=True) for _ in range(hogs)]
    try:
        yield
    finally:
        for hog in loops:
            hog.kill()
            hog.wait()
        os.sched_setaffinity(0, before)


@pytest.fixture
def one_busy_cpu():
    """This process and five busy loops on one CPU."""
    with busy_cpu(hogs=5):
        yield


def test_the_credit_never_exceeds_the_time_elapsed_or_the_cap(one_busy_cpu):
    worker = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        clock = Clock(0.2, root=worker.pid, max_credit=2.0)
        time.sleep(1.0)
        clock.sample()
        assert 0 < clock.credit <= 0.4 + 1e-9  # the cap: 2 x 0.2 s, though the worker waited longer
        unbounded = Clock(100.0, root=worker.pid)
        time.sleep(0.5)
        unbounded.sample()
        assert 0 < unbounded.credit <= time.monotonic() - unbounded.started
    finally:
        worker.kill()
        worker.wait()


def test_waiting_a_grading_causes_itself_earns_nothing():
    # Three busy processes of one tree on one CPU wait two thirds of the time, but the CPU is
    # theirs: a fork bomb or a thread per core cannot buy itself a longer limit. (What other
    # processes of this shared machine take of that CPU is credited: at most the time the three
    # did not run.)
    cpu = min(os.sched_getaffinity(0))
    tree = subprocess.Popen([sys.executable, "-c", (
        f"import os, subprocess, sys\nos.sched_setaffinity(0, {{{cpu}}})\n"
        "busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(3)]\n"
        "busy[0].wait()\n")])
    try:
        time.sleep(0.5)
        clock = Clock(100.0, root=tree.pid)
        time.sleep(1.5)
        clock.sample()
        elapsed = time.monotonic() - clock.started
        assert clock.waited_s > 0.5 * elapsed  # they did wait, each for the others
        assert clock.credit <= elapsed - clock.ran_s + 0.05
    finally:
        for pid in __import__("autograder.sandbox.processes", fromlist=["x"]).descendants(tree.pid):
            os.kill(pid, 9)
        tree.kill()
        tree.wait()


def test_a_fair_solution_on_a_starved_cpu_is_not_timed_out(monkeypatch):
    # The limit is set from this machine: half again the time the same grading takes alone on the
    # CPU. On a third of a CPU it then needs about twice its limit, the excess all waiting for the CPU
    # (without the credit it would stop with "Does your code loop forever?"), and the credit, at most
    # MAX_CREDIT limits, leaves room for a CPU more crowded still (CI runs other tests beside it).
    monkeypatch.setenv("AUTOGRADER_WARM", "0")
    with busy_cpu(hogs=0):  # the same one CPU, alone on it
        alone = grade("trace_tolist", SOLUTION, seed=1, warm=False, timeout=30.0)
    assert alone.passed, alone.message
    own = alone.extra["phases_s"]["against_limit"] - alone.extra["phases_s"]["waited_for_cpu"]  # less what others here took
    limit = 1.5 * own
    with busy_cpu(hogs=2):
        result = grade("trace_tolist", SOLUTION, seed=1, warm=False, timeout=limit)
    assert result.passed, result.message
    phases = result.extra["phases_s"]
    assert phases["against_limit"] > limit, phases  # it did need the credit
    assert phases["waited_for_cpu"] > phases["against_limit"] - limit - 0.05, phases


def test_a_loop_forever_still_stops_on_a_starved_cpu(tmp_path):
    looping = tmp_path / "trace_tolist.py"
    looping.write_text((ROOT / "exercises/01_dynamo_core/trace_tolist.py").read_text(encoding="utf-8") + "\nwhile True:\n    pass\n")
    started = time.monotonic()
    with busy_cpu(hogs=2):
        result = grade("trace_tolist", looping, seed=1, warm=False, timeout=1.0)
    elapsed = time.monotonic() - started
    # (How much of the wait is credited depends on what else runs on the machine: not asserted.)
    assert result.status == "error" and "stopped after 1 s" in result.message and result.extra["cause"] == "timeout"
    # The limit and at most MAX_CREDIT limits more, plus a cold judge's start on a third of a CPU.
    assert elapsed < 1.0 * (1 + clock_module.MAX_CREDIT) + 25

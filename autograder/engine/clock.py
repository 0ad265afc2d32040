"""A grading's deadline that does not count the time its processes waited for a CPU taken by others.

A grading's limit is meant for the learner's code: "does it loop forever, or wait for input?". On
a loaded machine (a class graded in parallel, CI, other users) the same code takes several times
longer by the wall clock, only because it waited in the kernel's run queue, and a fair fix ran past
its limit. The kernel counts that wait per task (``/proc/PID/task/TID/schedstat``: time on a CPU,
time runnable but waiting, in nanoseconds), so the judge credits it back: the deadline moves later
by the time the grading's processes waited to run, up to ``MAX_CREDIT`` times the limit (so a
grading never takes more than ``1 + MAX_CREDIT`` times its limit, and a loop forever still ends).

Only waiting that the grading did not cause itself is credited. Between two samples (every
``SAMPLE_EVERY_S`` while the judge waits) the grading's tasks (the reference child, the learner
child, its threads and the compilers it starts) ran ``C`` and waited ``W`` task-seconds, out of the
``n x dt`` that its ``n`` CPUs offered (those its tasks may run on: a task that pins itself and its
threads to one CPU crowds that one). Had the grading been alone, its runnable time
``C + W`` beyond ``n x dt`` would have waited anyway: that much is its own crowding, and the credit
grows by the rest, ``W - max(0, C + W - n x dt)``, never by more than ``dt``. A grading that
crowds the CPUs itself (a fork bomb, a busy thread per core) earns nothing for it; a one-thread
grading that gets a third of a CPU earns all it waited. Waits of tasks that begin and end between
two samples are missed, so it undercounts rather than overcounts. Without ``/proc`` (not Linux)
nothing is credited.
"""

from __future__ import annotations

import os
import time

from autograder.sandbox import processes

MAX_CREDIT = 3.0  # at most this many limits more, waiting for a CPU (a machine at load 8 on 2 cores runs a grading 4x slower)
SAMPLE_EVERY_S = 0.5


def task_times_s(pid: int) -> dict[int, tuple[float, float]]:
    """(seconds on a CPU, seconds runnable but waiting for one) of each task (thread) of ``pid``."""
    times = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return times
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as handle:
                ran, waited = handle.read().split()[:2]
            times[int(task)] = (int(ran) / 1e9, int(waited) / 1e9)
        except (OSError, ValueError):
            continue
    return times


class Clock:
    """``deadline()``: the time (``time.monotonic``) at which the grading has used its limit, later by
    what the processes under ``root`` (the judge: every process of the grading descends from it)
    waited for CPUs that others held, since the clock started."""

    def __init__(self, limit: float, root: int | None = None, max_credit: float = MAX_CREDIT):
        self.limit, self.root = float(limit), root if root is not None else os.getpid()
        self.started = time.monotonic()
        self.cap = self.limit * max_credit
        try:
            self.cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self.cpus = os.cpu_count() or 1
        # What the tasks already running did before the clock started is not the grading's.
        self._last = {(pid, tid): times for pid in processes.descendants(self.root) + [self.root]
                      for tid, times in task_times_s(pid).items()}
        self._sampled = self.started
        self.credit = 0.0
        self.ran_s = self.waited_s = 0.0  # task-seconds on a CPU and runnable-waiting, all tasks together
        self._over = False  # once the deadline has passed on a fresh sample, it stays passed

    def sample(self) -> None:
        if self._over:
            return
        now = time.monotonic()
        ran = waited = 0.0
        allowed: set[int] = set()  # the CPUs the grading's tasks may run on (a task may pin itself to fewer)
        for pid in processes.descendants(self.root) + [self.root]:
            for tid, (on_cpu, queued) in task_times_s(pid).items():
                try:
                    allowed |= os.sched_getaffinity(tid)
                except OSError:
                    pass
                before_cpu, before_queue = self._last.get((pid, tid), (0.0, 0.0))  # a new task: all since it began
                ran += max(0.0, on_cpu - before_cpu)
                waited += max(0.0, queued - before_queue)
                self._last[(pid, tid)] = (on_cpu, queued)
        self.ran_s += ran
        self.waited_s += waited
        interval = now - self._sampled
        if interval > 0:
            # Runnable task-seconds beyond what the CPUs offer would have waited even alone.
            cpus = min(self.cpus, len(allowed) or self.cpus)
            own_crowding = max(0.0, ran + waited - cpus * interval)
            self.credit = min(self.cap, self.credit + min(interval, max(0.0, waited - own_crowding)))
        self._sampled = now

    def deadline(self) -> float:
        now = time.monotonic()
        if now - self._sampled >= SAMPLE_EVERY_S or now >= self.started + self.limit + self.credit:
            self.sample()  # a deadline is only ever reached on a fresh sample
        if time.monotonic() >= self.started + self.limit + self.credit:
            self._over = True
        return self.started + self.limit + self.credit

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline()

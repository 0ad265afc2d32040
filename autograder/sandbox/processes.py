"""Process containment of one grading: nothing a submission starts outlives the grading.

The judge of a grading (``engine/judge.py``) makes itself a *child subreaper*, so that whatever
its children leave behind (a ``setsid`` double fork included) is re-parented to the judge and not
to init, and, where the kernel allows it (root on Linux), puts the learner's process into a fresh
PID namespace as its process 1: when that process ends, the kernel kills every process of the
namespace, and no process in it can signal or see one outside. At the end the judge kills every
descendant it still has (``kill_descendants``). Linux only; elsewhere each call does nothing and
says so.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

_CLONE_NEWPID = 0x20000000
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

_libc = None


def _c():
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
        except OSError:
            _libc = False
    return _libc


def become_subreaper() -> bool:
    libc = _c()
    return bool(libc) and libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def may_unshare_pid() -> bool:
    """Whether this process may make PID namespaces (root with CAP_SYS_ADMIN, Linux), asked without trying."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << 21))
    except (OSError, ValueError):
        pass
    return False


def new_pid_namespace() -> bool:
    """Put the *next* child of this process into a new PID namespace (as its process 1). True if the
    kernel allowed it (root with CAP_SYS_ADMIN); afterwards this process may fork only once more."""
    libc = _c()
    return bool(libc) and hasattr(libc, "unshare") and libc.unshare(_CLONE_NEWPID) == 0


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` when the parent ends (cleared on a change of user: call it after the drop)."""
    libc = _c()
    if libc:
        libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (from /proc: each task's ``children`` list, or, on a kernel
    without it, the parent field of every process's ``stat``), [] when unknown."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    listed = False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(part) for part in handle.read().split()]
            listed = True
        except OSError:
            continue
    if listed:
        return found
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def descendants(pid: int) -> list[int]:
    seen, todo = [], children(pid)
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        todo += children(current)
    return seen


def reap() -> None:
    """Collect every child that has ended, without waiting for the others."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(rounds: int = 50, keep=()) -> int:
    """SIGKILL every descendant of this process (but those in ``keep``) and reap them, again and again
    until none is left (a dying process's children are re-parented here, as this is a subreaper).
    Returns how many were killed."""
    killed = 0
    me = os.getpid()
    for _ in range(rounds):
        found = [pid for pid in descendants(me) if pid not in keep]
        if not found:
            reap()
            return killed
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
        reap()
    return killed


def close_fds_except(keep) -> None:
    """Close every file descriptor above 2 that is not in ``keep`` (a forked child's first act)."""
    keep = {fd for fd in keep if fd > 2}
    try:
        open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = list(range(3, min(os.sysconf("SC_OPEN_MAX"), 1 << 16)))
    for fd in open_fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass

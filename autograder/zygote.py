"""A warm grading worker: one process imports torch once, then forks a fresh child per grading.

Starting a child costs about 3 s here, almost all of it ``import torch`` and ``torch._dynamo``. The
zygote pays that once; each grading then runs in a child forked from it, which starts with
torch imported but has never compiled anything, so every grading still begins from a clean Dynamo
state and nothing one submission does can reach the next (a fork shares no memory afterwards).
The zygote itself never runs submission code.

Protocol on the zygote's stdin/stdout: one JSON line per job in, one JSON line per result out.
Used by the long-running front ends (watch, notebook checks, dev check, batches, the test suite);
one-shot commands keep the cold ``runner.run_child``.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .exercise import ROOT
from .runner import OUTPUT_KEEP, ChildRun, child_environment, contain, drop_wanted

_READY = "zygote-ready"


# -- inside the zygote process ----------------------------------------------------------------

def serve() -> None:
    """The zygote's main loop (runs in its own process)."""
    sys.path.insert(0, str(ROOT))
    import torch  # noqa: F401 - the point of the zygote: imported once, shared by every fork
    import autograder._child as child
    import autograder.checks  # noqa: F401
    import autograder.probe  # noqa: F401

    control_in = os.fdopen(os.dup(0), "r")
    control_out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    print(_READY, file=control_out, flush=True)
    for line in control_in:
        job = json.loads(line)
        reply = _run_forked(child, job)
        control_out.write(json.dumps(reply) + "\n")
        control_out.flush()


def _run_forked(child, job: dict) -> dict:
    timeout = float(job.pop("timeout"))
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    workdir = tempfile.mkdtemp(prefix="autograder-")
    pid = os.fork()
    if pid == 0:  # the grading child
        try:
            os.setsid()
            os.close(result_r)
            os.close(output_r)
            os.dup2(output_w, 1)
            os.dup2(output_w, 2)
            os.close(output_w)
            os.chdir(workdir)
            child.run_job(job, result_w, contain(timeout))
        finally:
            os._exit(70)
    os.close(result_w)
    os.close(output_w)
    result, output, timed_out = _collect(pid, result_r, output_r, timeout)
    _, status = os.waitpid(pid, 0)
    subprocess.run(["rm", "-rf", workdir], check=False)
    code = os.waitstatus_to_exitcode(status)
    return {"payload": result.decode("utf-8", "replace") if result else "", "output_tail": output.decode("utf-8", "replace")[-OUTPUT_KEEP:],
            "returncode": code, "timed_out": timed_out}


def _collect(pid: int, result_fd: int, output_fd: int, timeout: float):
    """Read the child's result and output until the result is in (or the deadline passes)."""
    deadline = time.monotonic() + timeout
    result, output = b"", b""
    open_fds = {result_fd, output_fd}
    timed_out = False
    while result_fd in open_fds or output_fd in open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = result_fd in open_fds
            break
        ready, _, _ = select.select(list(open_fds), [], [], min(remaining, 1.0))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.discard(fd)
                if fd == result_fd:  # the verdict is in: give the output a moment, not the full limit
                    deadline = min(deadline, time.monotonic() + 2.0)
            elif fd == result_fd:
                result += chunk
            else:
                output = (output + chunk)[-OUTPUT_KEEP * 4:]
    try:
        os.killpg(pid, signal.SIGKILL)  # whatever the submission started goes too
    except (ProcessLookupError, PermissionError):
        pass
    for fd in (result_fd, output_fd):
        os.close(fd)
    return (b"" if timed_out else result), output, timed_out


# -- in the grader's process ------------------------------------------------------------------

class WarmRunner:
    """Runs jobs in children forked from one warm zygote; restarts the zygote if it dies."""

    def __init__(self):
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        launcher = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from autograder.zygote import serve; serve()"
        self._process = subprocess.Popen([sys.executable, "-I", "-c", launcher], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_environment(),
                                         cwd=tempfile.gettempdir(), start_new_session=True, text=True)
        line = self._process.stdout.readline().strip()
        if line != _READY:
            self.close()
            raise RuntimeError("the warm grading worker failed to start")

    def run(self, job: dict, timeout: float) -> ChildRun:
        with self._lock:
            for attempt in (1, 2):
                if self._process is None or self._process.poll() is not None:
                    self._start()
                try:
                    self._process.stdin.write(json.dumps({**job, "timeout": timeout, "drop_privileges": drop_wanted()}) + "\n")
                    self._process.stdin.flush()
                    reply = self._read_reply(timeout + 30)
                except (BrokenPipeError, OSError, TimeoutError, ValueError):
                    reply = None
                if reply is not None:
                    payload = None
                    if reply["payload"] and not reply["timed_out"]:
                        try:
                            payload = json.loads(reply["payload"])
                        except ValueError:
                            payload = None
                    return ChildRun(payload=payload, output_tail=reply["output_tail"], returncode=reply["returncode"],
                                    timed_out=reply["timed_out"])
                # The zygote died or hung (a submission may have killed its parent): start afresh, and
                # report this grading as a crash rather than retrying code that kills graders.
                self.close()
                return ChildRun(payload=None, output_tail="", returncode=None, timed_out=False)

    def _read_reply(self, limit: float) -> dict | None:
        ready, _, _ = select.select([self._process.stdout], [], [], limit)
        if not ready:
            raise TimeoutError
        line = self._process.stdout.readline()
        return json.loads(line) if line else None

    def close(self) -> None:
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._process.wait()
            self._process = None


class WarmPool:
    """Up to ``size`` warm runners, so that several threads can grade at once (one zygote each)."""

    def __init__(self, size: int):
        self.size = max(1, size)
        self._idle: list[WarmRunner] = []
        self._all: list[WarmRunner] = []
        self._lock = threading.Condition()

    def run(self, job: dict, timeout: float) -> ChildRun:
        with self._lock:
            while not self._idle and len(self._all) >= self.size:
                self._lock.wait()
            if self._idle:
                runner = self._idle.pop()
            else:
                runner = WarmRunner()
                self._all.append(runner)
        try:
            return runner.run(job, timeout)
        finally:
            with self._lock:
                self._idle.append(runner)
                self._lock.notify()

    def start(self) -> None:
        """Start every zygote now rather than on first use (each takes seconds to import torch)."""
        with self._lock:
            while len(self._all) < self.size:
                runner = WarmRunner()
                runner._start()
                self._all.append(runner)
                self._idle.append(runner)

    def close(self) -> None:
        for runner in self._all:
            runner.close()


_shared: WarmPool | None = None


def shared_runner() -> WarmPool:
    """One pool of warm runners per process (size: AUTOGRADER_WORKERS, default the CPU count), closed at exit."""
    global _shared
    if _shared is None:
        _shared = WarmPool(int(os.environ.get("AUTOGRADER_WORKERS", os.cpu_count() or 1)))
        atexit.register(_shared.close)
    return _shared

"""Start the judge of one grading in a fresh interpreter, and bring back its verdict, whatever happens.

The judge (``engine/judge.py``) enforces the grading's own time limit and reports it; this runner
only guards against a judge that hangs itself (``GRACE_S`` beyond the limit) and kills the judge's
whole session at the end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from autograder.engine.clock import MAX_CREDIT
from autograder.format.exercise import ROOT
from autograder.sandbox.identity import drop_wanted, work_folder_base

OUTPUT_KEEP = 8000  # characters of the judge's own output kept (for a grader failure; the learner's comes in the verdict)
GRACE_S = 60.0  # how long past the grading's limit a judge may take (the reference run, deciding, cleaning up)


def judge_allowance(limit: float) -> float:
    """How long a judge may take for a grading limited to ``limit`` s: the limit, the time its processes
    may be credited for waiting for a CPU (``engine/clock.py``), and the grace."""
    return limit * (1 + MAX_CREDIT) + GRACE_S
_PASS_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TORCHINDUCTOR_CACHE_DIR", "CUDA_VISIBLE_DEVICES",
             "OMP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "VIRTUAL_ENV",
             "AUTOGRADER_PREIMPORT", "AUTOGRADER_UID_BASE", "AUTOGRADER_UID_POOL", "AUTOGRADER_NPROC", "AUTOGRADER_WORKERS",
             "AUTOGRADER_KERNEL_HEADERS", "AUTOGRADER_DROP_PRIVILEGES", "AUTOGRADER_TRUTH_CACHE")
# Every switch read on the grading side (the warm worker, the judge, the sandbox) must be here: a switch
# left out is silently ignored there (tests/test_runner_environment.py finds them).


@dataclass
class ChildRun:
    payload: dict | None  # the judge's verdict, None when it wrote none
    output_tail: str  # the end of what the judge itself printed
    returncode: int | None
    timed_out: bool  # the judge itself did not finish in time (not the grading's own limit: that is in the verdict)


def _drain(stream, keep: list) -> None:
    tail = b""
    for chunk in iter(lambda: stream.read(65536), b""):
        tail = (tail + chunk)[-OUTPUT_KEEP * 4 :]
    keep.append(tail)


def child_environment() -> dict:
    """The only variables a grading sees: nothing secret passes through."""
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    env.update({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    return env


def run_child(job: dict, timeout: float) -> ChildRun:
    """Run the judge on ``job`` in a fresh interpreter, its own session, with a work folder of its own."""
    read_fd, write_fd = os.pipe()
    env = child_environment()
    launcher = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from autograder.engine.judge import main; main()"
    with tempfile.TemporaryDirectory(prefix="autograder-", dir=work_folder_base()) as workdir:
        process = subprocess.Popen(
            [sys.executable, "-I", "-c", launcher],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=workdir, env=env, pass_fds=(write_fd,), start_new_session=True,
        )
        os.close(write_fd)
        received: list[bytes] = []
        output: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(_read_all(read_fd)), daemon=True)
        drainer = threading.Thread(target=_drain, args=(process.stdout, output), daemon=True)
        reader.start()
        drainer.start()
        timed_out = False
        try:
            try:
                process.stdin.write((json.dumps({**job, "result_fd": write_fd, "limit": timeout, "workdir": workdir,
                                                  "drop_privileges": drop_wanted(), "parent": os.getpid()}) + "\n").encode())
                process.stdin.close()
            except BrokenPipeError:
                pass
            try:
                process.wait(timeout=judge_allowance(timeout))
            except subprocess.TimeoutExpired:
                timed_out = True
        finally:  # also on Ctrl-C in the front end: the judge cleans up what it started, then its session goes
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        process.wait()
        reader.join(timeout=5)
        drainer.join(timeout=5)
        os.close(read_fd)
    raw = received[0] if received else b""
    payload = None
    if raw and not timed_out:
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = None
    tail = (output[0] if output else b"").decode("utf-8", "replace")[-OUTPUT_KEEP:]
    return ChildRun(payload=payload, output_tail=tail, returncode=process.returncode, timed_out=timed_out)


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)

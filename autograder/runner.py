"""Start the grading child, enforce its time limit, and bring back its result, whatever it does."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

from .exercise import ROOT

OUTPUT_KEEP = 8000  # characters of the child's output kept for the learner
_PASS_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TORCHINDUCTOR_CACHE_DIR", "CUDA_VISIBLE_DEVICES",
             "OMP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "VIRTUAL_ENV",
             "AUTOGRADER_PREIMPORT")


MEMORY_LIMIT = 4 << 30  # address space of one grading; torch with the eager backend peaks below 1 GiB
FILE_SIZE_LIMIT = 64 << 20
_CLONE_NEWNET = 0x40000000
DROP_SWITCH = "AUTOGRADER_DROP_PRIVILEGES"  # "0" keeps root in the grading child (debugging only)
NPROC_SWITCH = "AUTOGRADER_NPROC"  # overrides nproc_limit()


def contain(timeout: float) -> list[str]:
    """Limit the current process (a grading child, before any submission code): CPU time, address
    space, file size, no core dumps, and, where permitted, an empty network namespace.

    Returns what was applied, for the result. Runs first thing in the grading child (the cold child's
    ``main`` before it imports anything, the warm worker's fork before the job), never in the grader.
    The process limit comes with ``drop_privileges``: RLIMIT_NPROC does not bind root.
    """
    applied = []
    limits = [(resource.RLIMIT_CPU, int(2 * timeout) + 10, "cpu"), (resource.RLIMIT_AS, MEMORY_LIMIT, "memory"),
              (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT, "file size"), (resource.RLIMIT_CORE, 0, "core")]
    for kind, value, label in limits:
        try:
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, hard))
            applied.append(label)
        except (ValueError, OSError):
            pass
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWNET) == 0:
            applied.append("no network")
    except (OSError, AttributeError):
        pass
    return applied


def drop_wanted() -> bool:
    """Whether a grading child started by root should run the submission as nobody (default: yes)."""
    return os.environ.get(DROP_SWITCH, "1").strip().lower() not in ("0", "no", "false", "off")


def nproc_limit() -> int:
    """RLIMIT_NPROC for the dropped user. The kernel counts every task (thread) of that user, those
    of every grading running at once included, and torch starts a pool of about one thread per core
    in each grading (and the profiler more); so the limit grows with the cores and the gradings at
    once (AUTOGRADER_WORKERS, default the core count), and is never below 256: other gradings on the
    same machine (a test suite, a benchmark, a second batch) count too, and at 64 a profiled grading
    failed to start a thread ("Resource temporarily unavailable") beside a busy test run. A fork
    bomb stops at the limit, and the whole process group is killed at the end of the grading."""
    if os.environ.get(NPROC_SWITCH, "").isdigit():
        return max(8, int(os.environ[NPROC_SWITCH]))
    cpus = os.cpu_count() or 1
    workers = int(os.environ["AUTOGRADER_WORKERS"]) if os.environ.get("AUTOGRADER_WORKERS", "").isdigit() else cpus
    return max(256, (4 * cpus + 32) * max(1, workers))


def _nobody() -> tuple[int, int]:
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return 65534, 65534


def drop_privileges(workdir: str, wanted: bool = True) -> tuple[bool, str]:
    """As root: give ``workdir`` to nobody, limit nobody's processes and become nobody for good
    (setgroups([]), setgid, setuid). Returns (dropped, what to record in the result).

    Runs in the grading child after the grader's trusted preparation and before the submission:
    the process keeps every file descriptor it has open (the result pipe), but from here on can
    open only what nobody may open. Not root, or switched off: nothing changes, and it says so.
    """
    if not wanted:
        return False, f"privileges kept: {DROP_SWITCH}=0"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False, "privileges kept: not root"
    uid, gid = _nobody()
    limit = nproc_limit()
    try:
        os.chown(workdir, uid, gid)
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    except (OSError, ValueError) as exc:
        if os.getuid() == 0 and os.geteuid() == 0:
            return False, f"privileges kept: dropping them failed ({exc})"
        raise  # half dropped: never run the submission in that state
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise RuntimeError("privileges could be regained after dropping them")
    # Where libraries write: the grading's own folder, which nobody owns (HOME=/root is unreadable now).
    import tempfile

    os.environ["HOME"] = os.environ["TMPDIR"] = tempfile.tempdir = workdir
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if cache is None or not os.access(cache if os.path.isdir(cache) else os.path.dirname(cache) or "/", os.W_OK):
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(workdir, "inductor-cache")
    return True, f"ran as nobody (uid {uid}, gid {gid}), at most {limit} processes"


@dataclass
class ChildRun:
    payload: dict | None  # what the child reported, None when it reported nothing
    output_tail: str  # the end of what the child printed (stdout and stderr together)
    returncode: int | None
    timed_out: bool


def _drain(stream, keep: list) -> None:
    tail = b""
    for chunk in iter(lambda: stream.read(65536), b""):
        tail = (tail + chunk)[-OUTPUT_KEEP * 4 :]
    keep.append(tail)


def child_environment() -> dict:
    """The only variables a grading child sees: nothing secret passes through."""
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    env.update({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    return env


def run_child(job: dict, timeout: float) -> ChildRun:
    """Run ``autograder._child`` on ``job`` in a fresh interpreter, its own session and a temp dir."""
    read_fd, write_fd = os.pipe()
    env = child_environment()
    launcher = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from autograder._child import main; main()"
    with tempfile.TemporaryDirectory(prefix="autograder-") as workdir:
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
            process.stdin.write((json.dumps({**job, "result_fd": write_fd, "limit": timeout,
                                              "drop_privileges": drop_wanted()}) + "\n").encode())
            process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        # Kill the whole session: whatever the submission started goes too.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
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

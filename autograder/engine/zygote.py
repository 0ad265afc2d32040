"""A warm grading worker: one process imports torch once, then forks a fresh judge per grading.

Starting a judge costs about 3 s here, almost all of it ``import torch`` and ``torch._dynamo``. The
zygote pays that once; each grading's judge (``engine/judge.py``, the same code a cold grading runs)
is forked from it, starts with torch imported but has never compiled anything, and forks the
grading's reference and learner children in turn, so every grading still begins from a clean
Dynamo state and nothing one submission does can reach the next (a fork shares no memory afterwards).
The zygote itself never runs submission code, and never compiles: the modules torch imports
lazily on its first compile (0.4 s of each grading otherwise) it imports once, by name, after a
throwaway child has compiled the grader's own warm-up program (``_ModuleLearner``).

Protocol on the zygote's stdin/stdout: one JSON line per job in, one JSON line per result out.
Used by the long-running front ends (watch, notebook checks, dev check, batches, the test suite);
one-shot commands keep the cold ``runner.run_child``.

Nothing outlives the grader. The zygote ends, killing its current grading child's process group
first, when its control pipe closes (the grader exited or died, even by SIGKILL), when it gets
SIGTERM, and, on Linux, when the grader process dies (``PR_SET_PDEATHSIG``, checked against the
grader's pid, so that the end of the thread which started it does not count). A grading child is
killed with its zygote (``PR_SET_PDEATHSIG`` again; a child that dropped to nobody loses that
setting and is covered by the zygote killing it). A grading child never holds the control pipe.
The zygote is a child subreaper: whatever a grading left behind is re-parented to it and killed
after that grading.
"""

from __future__ import annotations

import atexit
import ctypes
import gc
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.engine.runner import OUTPUT_KEEP, ChildRun, child_environment, judge_allowance
from autograder.format.exercise import ROOT
from autograder.sandbox import processes
from autograder.sandbox.identity import drop_wanted, work_folder_base

_READY = "zygote-ready"
# What the zygote does about the modules torch imports on its first compile (_ModuleLearner):
# "background" (default) learns them beside the first gradings, "first" before it says it is ready
# (steady-state measurements, tests), "0" not at all (a grading then imports them itself).
LEARN_SWITCH = "AUTOGRADER_PREIMPORT"
_PR_SET_PDEATHSIG = 1
_PARENT_GONE = signal.SIGUSR1  # what the kernel sends the zygote when the grader dies


_prctl = None


def _die_with_parent(signum: int, parent: int) -> bool:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux); False if the
    parent ``parent`` is gone already. libc is looked up once, in the zygote, never after a fork."""
    global _prctl
    if _prctl is None:
        try:
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    if _prctl:
        _prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    return os.getppid() == parent


# -- inside the zygote process ----------------------------------------------------------------

_current_child: int | None = None  # the grading child now running, killed with the zygote
_current_workdir: str | None = None


def _kill_current_child() -> None:
    pid = _current_child
    if pid is None:
        return
    for kill in (os.killpg, os.kill):  # its session, and the child itself should it not have one yet
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _end(code: int = 0) -> None:
    _kill_current_child()
    if _current_workdir is not None:
        shutil.rmtree(_current_workdir, ignore_errors=True)
    os._exit(code)


class _Control:
    """The zygote's end of the control pipe: whole lines in, and EOF noticed even during a grading."""

    def __init__(self, fd: int):
        self.fd, self.buffer = fd, b""

    def poll(self) -> None:
        """Called when the pipe is readable: keep what arrived; end the zygote at EOF (the grader is gone)."""
        chunk = os.read(self.fd, 65536)
        if not chunk:
            _end()
        self.buffer += chunk

    def readline(self) -> bytes:
        while b"\n" not in self.buffer:
            self.poll()
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def serve(parent: int | None = None) -> None:
    """The zygote's main loop (runs in its own process). ``parent``: the grader's pid; the zygote
    ends, with its grading child, when that process dies."""
    signal.signal(signal.SIGTERM, lambda signum, frame: _end(128 + signum))
    if parent is not None:
        # The kernel also signals when the *thread* that started us ends; only a new parent means the grader died.
        signal.signal(_PARENT_GONE, lambda signum, frame: os.getppid() != parent and _end(128 + signum))
        if not _die_with_parent(_PARENT_GONE, parent):
            os._exit(70)
    else:
        _die_with_parent(0, os.getppid())  # 0: no signal; looks libc up before any fork
    sys.path.insert(0, str(ROOT))
    import torch  # noqa: F401 - the point of the zygote: imported once, shared by every fork
    import autograder.engine.judge as judge
    import autograder.engine.reference  # noqa: F401
    import autograder.engine.verdict  # noqa: F401
    import autograder.sandbox.child  # noqa: F401
    import autograder.sandbox.integrity  # noqa: F401
    import autograder.sandbox.kinds.all  # noqa: F401
    import autograder.sandbox.probe  # noqa: F401
    import autograder.sandbox.timing  # noqa: F401 - what every judge would import for itself
    import torch.utils.serialization  # noqa: F401 - first used by the judge's first torch.load
    from autograder.checks.all import load_all
    from autograder.engine import kept

    load_all()
    kept._course_code_digest()  # once here, for every grading forked from here
    processes.become_subreaper()
    from autograder.sandbox import identity, kernel_headers, python_headers

    python_headers.readable_copy()  # found or made once; every grading forked from here knows it
    # Inductor's check of the CPU (probe.check_cpu_for_inductor) is done here once and found done by every
    # grading forked from here: now where the learner child cannot start this interpreter (it must run
    # as root), else before the first grading that may build C++ kernels (each such grading paid it).
    cpu_checked = identity.drop_wanted() and identity.inductor_needs_root()
    headers_built = False
    if cpu_checked:
        autograder.sandbox.probe.check_cpu_for_inductor()
    prepare_watch = autograder.sandbox.integrity.prepare

    control = _Control(os.dup(0))
    control_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # a grading child gets its own output pipe; nothing else may reach the grader
    mode = os.environ.get(LEARN_SWITCH, "background")
    learner = None
    if mode != "0" and not _import_learned_modules():
        learner = _ModuleLearner((control.fd, control_out), keep=True)
    if learner is not None and mode == "first":
        learner.wait_for_report()  # with nothing else to watch, it returns once the report is in (or too late)
        learner = None
    prepare_watch()
    _write_line(control_out, _READY)
    while True:
        while learner is not None and b"\n" not in control.buffer:  # idle: wait for a job or the learner's report
            if learner.wait_for_report((control.fd,)):
                learner = None
                prepare_watch()  # again: the modules just imported are watched too
            else:
                control.poll()
        job = json.loads(control.readline())
        if not headers_built and job.get("drop_privileges", True) and kernel_headers.builds_cpu_kernels(job):
            if not cpu_checked:
                autograder.sandbox.probe.check_cpu_for_inductor()
                cpu_checked = True
            # Inductor's precompiled header, built once here for every later grading to include
            # (each grading used to parse ATen's headers again for every kernel it compiled).
            kernel_headers.prepare()
            headers_built = True
        if learner is not None and learner.report_in():
            if time.monotonic() > learner.deadline:
                learner.data = b""  # too late: nothing is imported, as in wait_for_report
            learner.finish()
            learner = None
            prepare_watch()  # again: the modules just imported are watched too
        private = (control.fd, control_out) + ((learner.read_fd,) if learner is not None else ())
        reply = _run_forked(judge, job, control, private, keep={learner.pid} if learner is not None else set())
        _write_line(control_out, json.dumps(reply))


def _import_names(names: list) -> list[str]:
    """Import each module name (never ``__main__``; one that only imports mid-compile is left to the
    grading that needs it): the names imported."""
    import importlib

    imported = []
    for name in names:
        if not isinstance(name, str) or name == "__main__":
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001
            continue
        imported.append(name)
    return imported


def _import_learned_modules() -> bool:
    """Import the module names an earlier worker learned (``engine.kept.learned_modules``), if this
    machine keeps them for this course code and torch: True when it did, and nothing is left to learn."""
    from autograder.engine.kept import learned_modules

    names = learned_modules()
    if names is None:
        return False
    _import_names(names)
    return True


class _ModuleLearner:
    """Learns which modules torch imports lazily on its first compile (about 600 here, 0.4 s of
    every grading), so that the zygote imports them once. Which ones depends on the torch version,
    so a throwaway child forked from the zygote compiles the grader's own warm-up program
    (``probe.warm_up_compiler``, never a submission) and reports the new names in the order they
    came; the zygote then imports those names and nothing else. No compiled state comes along:
    only modules. The child runs beside the first gradings, so the zygote is ready as soon as
    torch is imported; the zygote imports the names between two gradings. The names are kept where
    the machine keeps reference runs (``engine.kept.learned_modules``): a worker started later
    imports them before it says it is ready, and learns nothing (its first gradings no longer
    import them each, nor share the CPU with a learning child)."""

    LIMIT_S = 120.0

    def __init__(self, private=(), keep: bool = False):
        self.keep = keep  # a zygote's learner: what it learned is kept for the workers started after it
        self.deadline = time.monotonic() + self.LIMIT_S
        self.read_fd, write_fd = os.pipe()
        self.data, self.imported = b"", []
        zygote = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                _die_with_parent(signal.SIGKILL, zygote)
                for fd in (self.read_fd, *private):
                    os.close(fd)
                from autograder.sandbox import probe

                before = set(sys.modules)
                probe.warm_up_compiler()
                names = [name for name in sys.modules if name not in before]
                with os.fdopen(write_fd, "w") as channel:
                    channel.write(json.dumps(names))
            finally:
                os._exit(0)
        os.close(write_fd)

    def wait_for_report(self, others=()) -> bool:
        """Wait until the child's report is in (then import it: True) or one of ``others`` is
        readable (False). A child that has not reported within ``LIMIT_S`` is killed and nothing is
        imported: gradings then import what they need themselves, as without the learner."""
        while True:
            remaining = self.deadline - time.monotonic()
            ready, _, _ = select.select([self.read_fd, *others], [], [], max(0.0, remaining))
            if self.read_fd in ready:
                chunk = os.read(self.read_fd, 65536)
                self.data += chunk
                if not chunk:
                    self.finish()
                    return True
            elif not ready:  # past the deadline
                self.data = b""
                self.finish()
                return True
            if any(fd in ready for fd in others):
                return False

    def report_in(self) -> bool:
        """Without waiting: read what the child has written; True once its report is whole (the
        zygote then imports the names before its next grading instead of after it: gradings sent back
        to back would otherwise never leave it idle, and each would import them itself)."""
        while True:
            ready, _, _ = select.select([self.read_fd], [], [], 0)
            if not ready:
                return time.monotonic() > self.deadline
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                return True
            self.data += chunk

    def finish(self) -> list[str]:
        """Stop the child and import what it reported; returns the names imported."""
        os.close(self.read_fd)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # collected already: never the end of the zygote
            pass
        try:
            names = json.loads(self.data) if self.data else []
        except ValueError:
            names = []
        self.imported = _import_names(names if isinstance(names, list) else [])
        if self.keep:
            from autograder.engine.kept import keep_learned_modules

            keep_learned_modules(self.imported)  # the next worker imports them at once (_import_learned_modules)
        return self.imported


def _write_line(fd: int, text: str) -> None:
    data = (text + "\n").encode()
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:  # BrokenPipeError: the grader is gone
        _end()


def _run_forked(judge, job: dict, control: _Control | None = None, private=(), keep=frozenset()) -> dict:
    global _current_child, _current_workdir
    timeout = float(job.pop("timeout"))
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    workdir = _current_workdir = tempfile.mkdtemp(prefix="autograder-", dir=work_folder_base())
    zygote = os.getpid()
    gc.freeze()  # what every grading inherits is never traversed by their collectors: no copy-on-write of the whole heap
    pid = os.fork()
    if pid == 0:  # the judge of this grading
        try:
            for signum in (signal.SIGTERM, _PARENT_GONE):
                signal.signal(signum, signal.SIG_DFL)
            if not _die_with_parent(signal.SIGKILL, zygote):
                os._exit(70)
            for fd in private:  # the control pipe: nothing of a grading may read jobs or write replies
                os.close(fd)
            os.setsid()
            os.close(result_r)
            os.close(output_r)
            os.dup2(output_w, 1)
            os.dup2(output_w, 2)
            os.close(output_w)
            os.chdir(workdir)
            judge.run_job({**job, "limit": timeout, "workdir": workdir}, result_w)
        finally:
            os._exit(70)
    _current_child = pid
    os.close(result_w)
    os.close(output_w)
    try:
        result, output, timed_out = _collect(pid, result_r, output_r, judge_allowance(timeout), control)
    finally:
        _current_child = None  # _collect killed its process group
    _, status = os.waitpid(pid, 0)
    processes.kill_descendants(keep=keep)  # what a grading left behind was re-parented here
    shutil.rmtree(workdir, ignore_errors=True)
    _current_workdir = None
    code = os.waitstatus_to_exitcode(status)
    return {"payload": result.decode("utf-8", "replace") if result else "", "output_tail": output.decode("utf-8", "replace")[-OUTPUT_KEEP:],
            "returncode": code, "timed_out": timed_out}


def _collect(pid: int, result_fd: int, output_fd: int, timeout: float, control: _Control | None = None):
    """Read the child's result and output until the result is in (or the deadline passes). A closed
    control pipe ends the zygote, and the child with it."""
    deadline = time.monotonic() + timeout
    result, output = b"", b""
    open_fds = {result_fd, output_fd}
    timed_out = False
    while result_fd in open_fds or output_fd in open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = result_fd in open_fds
            break
        watched = list(open_fds) + ([control.fd] if control is not None else [])
        ready, _, _ = select.select(watched, [], [], min(remaining, 1.0))
        for fd in ready:
            if control is not None and fd == control.fd:
                control.poll()
                continue
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
    """Runs jobs in children forked from one warm zygote; restarts the zygote if it dies.

    ``memory_limit`` (bytes): a lower memory cap (RLIMIT_DATA) for every grading child (a batch's --memory-limit)."""

    def __init__(self, memory_limit: int | None = None):
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.memory_limit = memory_limit
        self.closed = False

    def _start(self) -> None:
        if self.closed:
            raise RuntimeError("the warm grading worker was closed")
        launcher = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from autograder.engine.zygote import serve; "
                    f"serve({os.getpid()})")
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
                    extra = {"memory_limit": self.memory_limit} if self.memory_limit else {}
                    self._process.stdin.write(json.dumps({**job, **extra, "timeout": timeout, "drop_privileges": drop_wanted()}) + "\n")
                    self._process.stdin.flush()
                    reply = self._read_reply(judge_allowance(timeout) + 30)
                except (BrokenPipeError, OSError, TimeoutError, ValueError, AttributeError):  # AttributeError: closed meanwhile
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

    def close(self, final: bool = False) -> None:
        """Stop the zygote: SIGTERM (it kills its grading child's session, then itself), SIGKILL to
        its process group after 2 s. ``final``: never start another one."""
        self.closed = self.closed or final
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.terminate()
            process.wait(timeout=2)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass


class WarmPool:
    """Up to ``size`` warm runners, so that several threads can grade at once (one zygote each).
    ``memory_limit`` as in WarmRunner."""

    def __init__(self, size: int, memory_limit: int | None = None):
        self.size = max(1, size)
        self.memory_limit = memory_limit
        self._idle: list[WarmRunner] = []
        self._all: list[WarmRunner] = []
        self._lock = threading.Condition()
        self.closed = False

    def run(self, job: dict, timeout: float) -> ChildRun:
        with self._lock:
            while not self._idle and len(self._all) >= self.size and not self.closed:
                self._lock.wait()
            if self.closed:
                raise RuntimeError("the warm grading pool was closed")
            if self._idle:
                runner = self._idle.pop()
            else:
                runner = WarmRunner(self.memory_limit)
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
                runner = WarmRunner(self.memory_limit)
                runner._start()
                self._all.append(runner)
                self._idle.append(runner)

    def close(self) -> None:
        """Stop every zygote (a grading in flight ends as a crash) and start none again."""
        with self._lock:
            self.closed = True
            runners = list(self._all)
            self._lock.notify_all()
        for runner in runners:
            runner.close(final=True)


_shared: WarmPool | None = None


def install(pool: WarmPool | None) -> WarmPool | None:
    """Make ``pool`` what ``shared_runner()`` (so ``grade(..., warm=True)``) uses in this process;
    returns the pool it replaces. A batch installs its own (its size, its memory limit)."""
    global _shared
    previous, _shared = _shared, pool
    return previous


def shared_runner() -> WarmPool:
    """One pool of warm runners per process (size: AUTOGRADER_WORKERS, default the CPU count), closed at exit."""
    global _shared
    if _shared is None:
        _shared = WarmPool(int(os.environ.get("AUTOGRADER_WORKERS", os.cpu_count() or 1)))
        atexit.register(_shared.close)
    return _shared

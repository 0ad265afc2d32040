"""Who a grading's learner process runs as: as root, a user id of its own for that grading (a pool,
see ``allocate``), unless the machine makes a drop impossible (then it keeps root and says why)."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
import sysconfig
from dataclasses import dataclass

from autograder.sandbox.permissions import enterable_by_others as _enterable_by_others
from autograder.sandbox.permissions import readable_by_others as _readable_by_others
from autograder.sandbox.permissions import running_as_root as _running_as_root


DROP_SWITCH = "AUTOGRADER_DROP_PRIVILEGES"  # "0" keeps root in the grading child (debugging only)


NPROC_SWITCH = "AUTOGRADER_NPROC"  # overrides nproc_limit()


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


# -- one identity per grading ---------------------------------------------------------------------
#
# Every grading that runs at once gets a user id of its own from a pool (uid = gid = POOL_BASE + slot,
# ids no account uses), held with an exclusive lock (flock) on a file in a folder only root may
# enter. The lock goes with the process that holds it, even when that process is SIGKILLed, so a
# slot is never shared by two gradings and never lost. Before a slot is used, every process still
# running under its id (one that escaped an earlier grading) is killed. Two gradings then cannot
# signal each other (no process may signal another user's), read each other's scratch folders
# (0700), or share a cache.

POOL_BASE_SWITCH, POOL_SIZE_SWITCH = "AUTOGRADER_UID_BASE", "AUTOGRADER_UID_POOL"
POOL_BASE, POOL_SIZE = 1_990_000_000, 512


@dataclass
class Identity:
    uid: int
    gid: int
    label: str  # what the result records
    lock_fd: int | None = None  # held while the grading runs; None for the shared fallback (nobody)


def _pool() -> tuple[int, int]:
    base = os.environ.get(POOL_BASE_SWITCH, "")
    size = os.environ.get(POOL_SIZE_SWITCH, "")
    return (int(base) if base.isdigit() else POOL_BASE), max(1, int(size) if size.isdigit() else POOL_SIZE)


def root_only_folder(name: str) -> str | None:
    """A folder only root may enter (``/run/NAME``, else under the temporary folder), made when
    missing; None if none can be made or the one there is not root's alone."""
    import stat
    import tempfile

    for parent in ("/run", tempfile.gettempdir()):
        folder = os.path.join(parent, name)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        try:
            info = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o077:
            return folder
    return None


def _lock_folder() -> str | None:
    """The folder of the pool's lock files."""
    return root_only_folder("autograder-identities")


def processes_of(uid: int) -> list[int]:
    """The pids of every process whose real or saved user id is ``uid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        real, _effective, saved = line.split()[1:4]
                        if int(real) == uid or int(saved) == uid:
                            found.append(int(entry))
                        break
        except (OSError, ValueError):
            continue
    return found


def kill_all_of(uid: int, rounds: int = 20) -> None:
    """SIGKILL every process running as ``uid`` (root only), again until none is left: one that forked
    meanwhile is caught by the next round."""
    if not _running_as_root() or uid == 0:
        return
    for _ in range(rounds):
        found = processes_of(uid)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def allocate(sweep: bool = True) -> Identity:
    """A grading identity of its own (root only; see above), or nobody, shared, when no lock folder can be made.
    ``sweep``: first kill what still runs under it (needless where every grading had a PID namespace of its own)."""
    import fcntl
    import random

    folder = _lock_folder()
    base, size = _pool()
    if folder is not None:
        start = random.randrange(size)
        for step in range(size):
            slot = (start + step) % size
            path = os.path.join(folder, f"{slot}.lock")
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            uid = base + slot
            if sweep:
                kill_all_of(uid)  # whatever an earlier grading under this id left running
            return Identity(uid, uid, f"uid {uid}, an identity of this grading's own", fd)
    uid, gid = _nobody()
    return Identity(uid, gid, f"nobody (uid {uid}, shared: no folder for the grading identities' locks)")


SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")  # where any user may make files (beside a grading's scratch)


def remove_files_of(uid: int, roots=SHARED_WRITABLE, depth: int = 4) -> list[str]:
    """Delete what ``uid`` left in the folders every user may write (and in such folders inside them):
    a file torch's C++ code wrote to ``/tmp/...`` raises no audit event, and would outlive the grading
    for the next one to read. Only called for an identity of the grading's own (never a shared
    nobody). Returns what it removed."""
    import shutil
    import stat

    removed = []

    def walk(folder: str, left: int) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid == uid:
                try:
                    if stat.S_ISDIR(info.st_mode):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)
                    removed.append(entry.path)
                except OSError:
                    pass
            elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH and left > 0:
                walk(entry.path, left - 1)  # another user's folder that anyone may write into

    for root in roots:
        if os.path.isdir(root):
            walk(root, depth)
    return removed


def release(identity: Identity | None, sweep: bool = True) -> None:
    """Give the identity back; ``sweep``: kill what still runs under it first (not needed after a PID
    namespace ended). What it left in the folders every user may write goes in any case."""
    if identity is None or identity.lock_fd is None:
        return
    if sweep:
        kill_all_of(identity.uid)
    remove_files_of(identity.uid)
    os.close(identity.lock_fd)
    identity.lock_fd = None


def prepare_scratch(workdir: str, identity: Identity | None) -> str:
    """``workdir/scratch``, the only folder the submission may write: owned by the grading's identity,
    0700. ``workdir`` itself stays root's (0711): the submission reaches its scratch folder, nothing else there."""
    scratch = os.path.join(workdir, "scratch")
    os.mkdir(scratch, 0o700)
    if identity is not None:
        os.chmod(workdir, 0o711)
        os.chown(scratch, identity.uid, identity.gid)
    return scratch


def private_caches(scratch: str) -> None:
    """Every cache a grading writes goes under its scratch folder, deleted with it: Inductor's,
    Triton's, the home folder's. (A cache kept across gradings would let one submission leave
    compiled code behind for the next student's grading.)"""
    import tempfile

    os.environ["HOME"] = os.environ["TMPDIR"] = tempfile.tempdir = scratch
    compile_caches_in(scratch)
    os.environ["XDG_CACHE_HOME"] = os.path.join(scratch, "cache")


def compile_caches_in(folder: str) -> None:
    """Inductor's and Triton's caches under ``folder``, and no precompiled header: Inductor writes
    those to the machine-wide ``/tmp/torchinductor_USER/precompiled_headers`` whatever its cache
    folder, shared by every grading (and a file larger than a grading may write). The environment
    variable reaches the processes a grading starts; ``probe.private_compile_caches`` covers an
    Inductor already imported."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(folder, "inductor-cache")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "triton-cache")
    os.environ["TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS"] = "0"


@contextlib.contextmanager
def _environment(values: dict):
    """These environment variables set while the block runs, then each as it was (unset if it was)."""
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def compile_caches_at(folder: str):
    """Inductor's and Triton's caches under ``folder`` while the block runs, then whatever they were."""
    with _environment({"TORCHINDUCTOR_CACHE_DIR": os.path.join(folder, "inductor-cache"),
                       "TRITON_CACHE_DIR": os.path.join(folder, "triton-cache")}):
        yield folder


@contextlib.contextmanager
def inductor_cache_at(folder: str):
    """Inductor's cache in ``folder`` while the block runs, then whatever it was before."""
    with _environment({"TORCHINDUCTOR_CACHE_DIR": folder}):
        yield folder


def drop_to(identity: Identity, limit: int | None = None) -> str:
    """As root: become ``identity`` for good (setgroups([]), setgid, setuid), with RLIMIT_NPROC at
    ``limit``; check that root cannot be regained. Returns what to record in the result."""
    limit = nproc_limit() if limit is None else limit
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        os.setgroups([])
        os.setgid(identity.gid)
        os.setuid(identity.uid)
    except (OSError, ValueError) as exc:
        if os.getuid() == 0 and os.geteuid() == 0:
            raise RuntimeError(f"dropping privileges failed ({exc})") from None
        raise  # half dropped: never run the submission in that state
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise RuntimeError("privileges could be regained after dropping them")
    return f"ran as {identity.label} (gid {identity.gid}), at most {limit} processes"


# Imported before the drop: a fix may use any of these, and torch imports some of them lazily while
# compiling (eager: importlib.readers, xml.etree via networkx; aot_eager: concurrent.futures.process,
# multiprocessing.queues; inductor: configparser, getopt, email.*). torch's own modules live in the
# (readable) site-packages and import fine afterwards.
SANDBOX_MODULES = """abc argparse array ast base64 binascii bisect bz2 calendar cmath codecs collections collections.abc
colorsys concurrent.futures concurrent.futures.process configparser contextlib contextvars copy copyreg csv dataclasses datetime
decimal difflib dis email email._header_value_parser email.headerregistry encodings.idna encodings.unicode_escape enum errno
fnmatch fractions functools getopt glob gzip hashlib heapq hmac html html.entities importlib importlib.abc importlib.machinery
importlib.metadata importlib.readers importlib.resources importlib.resources._itertools importlib.resources.readers
importlib.util inspect io ipaddress itertools json keyword linecache locale logging logging.handlers lzma math
multiprocessing multiprocessing.pool multiprocessing.queues numbers opcode operator os pathlib pickle pkgutil platform pprint
queue random re reprlib secrets selectors shlex shutil signal socket statistics string struct subprocess sys sysconfig
tempfile textwrap threading time timeit token tokenize traceback types typing typing_extensions unittest unittest.mock
uuid warnings weakref xml.etree.ElementTree zipfile zlib""".split()


class _Unavailable:
    """Last on ``sys.meta_path`` after the drop: a standard-library module nobody cannot read gives
    an error that says so, not just "No module named ..."."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names:
            raise ModuleNotFoundError(f"No module named {name!r}: this module is not available in the grading sandbox "
                                      "(the grader runs your code as an unprivileged user, who cannot read it). "
                                      "Use one of the modules the exercise needs (torch, math, functools, ...)", name=name)
        return None


def preload(names=SANDBOX_MODULES) -> None:
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _stdlib_unreadable() -> bool:
    import sysconfig

    paths = sysconfig.get_paths()
    return not all(os.access(paths[key], os.R_OK | os.X_OK) for key in ("stdlib", "platstdlib") if key in paths)


def uses_inductor(exercise) -> bool:
    """Whether a grading of ``exercise`` compiles with Inductor (its compile options or a check's backend)."""
    return exercise.compile.get("backend") == "inductor" or any(
        spec.params.get("backend", "inductor" if spec.kind == "speed" else None) == "inductor" for spec in exercise.checks)


def inductor_needs_root() -> bool:
    """Whether Inductor's check of the CPU's vector instructions must run as root: it starts this
    interpreter, which a grading's own user cannot where it lies in a folder closed to others."""
    return _running_as_root() and not _readable_by_others(sys.executable)


def inductor_blocks_the_drop(exercise) -> str | None:
    """The reason to keep root for this grading, or None. Inductor on the CPU compiles C++ against
    the interpreter's headers; where nobody cannot read them (an interpreter under /root, as on the
    course's reference machine), an exercise graded with Inductor could not run at all as nobody,
    unless root made a public copy of them (``python_headers``)."""
    if not uses_inductor(exercise) or not _running_as_root():
        return None
    from autograder.sandbox import python_headers

    if python_headers.readable_copy() is not None:
        return None
    return (f"privileges kept: Inductor compiles C++ against {python_headers.interpreter_headers()}, which nobody "
            "cannot read here, and no public copy of it could be made")


def closed_package_folder(folders=None) -> str | None:
    """The first folder a grading imports code from that nobody cannot enter, or None. Dynamo
    imports parts of torch while it compiles, after the drop; a course kept under a folder closed
    to others (a 0700 home or ``mktemp -d`` folder) would fail every grading as nobody with
    ModuleNotFoundError. ``folders``: torch's and the autograder's package folders by default."""
    if folders is None:
        import torch

        folders = [os.path.dirname(os.path.realpath(torch.__file__)), os.path.dirname(os.path.dirname(os.path.realpath(__file__)))]
    return next((folder for folder in folders if not _readable_by_others(folder)), None)


def work_folder_base() -> str | None:
    """Where a grading's work folder goes: the temporary folder (TMPDIR), or, when a grading's own user
    could not enter that (a TMPDIR under a 0700 home folder), ``/tmp`` if it can be entered; None for
    the default when there is no drop to make."""
    import tempfile

    if not _running_as_root() or not drop_wanted():
        return None
    default = tempfile.gettempdir()
    if _enterable_by_others(default):
        return None
    return "/tmp" if os.path.isdir("/tmp") and _enterable_by_others("/tmp") else None


def work_folder_blocks_the_drop(workdir: str) -> str | None:
    """The reason to keep root for a grading whose work folder its own user could not enter, or None."""
    if _enterable_by_others(os.path.dirname(os.path.realpath(workdir))):
        return None
    return (f"privileges kept: the grading's work folder {workdir} is inside a folder closed to others; "
            "to grade as a user of its own, set TMPDIR to a folder others may enter (chmod o+x)")


def some_grading_keeps_root() -> str | None:
    """Why some grading on this machine would run learner code as root, or None when every grading
    drops to a user of its own: what a root-only folder holds is then out of every submission's reach
    (a submission that runs as root could read it, and write into it from C++, e.g. with torch.save).
    Reasons: not root, the drop switched off, packages or the temporary folder closed to others, or
    Python's headers closed to others with no public copy (then every grading with Inductor keeps root)."""
    import tempfile

    if not _running_as_root():
        return "the grader is not root"
    if not drop_wanted():
        return f"{DROP_SWITCH}=0"
    blocked = packages_block_the_drop()
    if blocked:
        return blocked
    if not _enterable_by_others(work_folder_base() or tempfile.gettempdir()):
        return "the work folders' parent is closed to others"
    from autograder.sandbox import python_headers

    if python_headers.readable_copy() is None:
        return f"gradings with Inductor keep root: nobody can read {python_headers.interpreter_headers()}, nor a copy of it"
    return None


def packages_block_the_drop() -> str | None:
    """The reason to keep root for every grading here, or None (see ``closed_package_folder``)."""
    if not _running_as_root():
        return None
    folder = closed_package_folder()
    if folder is None:
        return None
    return (f"privileges kept: nobody cannot read {folder} (a folder above it is closed to others); "
            "to grade as nobody, keep the course and its environment where others may read them (chmod o+rx)")


def before_drop() -> None:
    """Read, while still root, what the new user may not be able to: the standard-library modules a fix
    or torch's compilers import lazily, and sysconfig's data (``after_drop`` needs it)."""
    sysconfig.get_paths()
    preload()


def after_drop() -> None:
    """After the drop: a standard-library module this user cannot read fails with a message that says so."""
    if _stdlib_unreadable():
        sys.meta_path.append(_Unavailable)

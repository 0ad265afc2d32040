"""Who the grading child runs the submission as: as root it becomes nobody after its trusted
preparation, unless the machine makes that impossible (then it keeps root and says why)."""

from __future__ import annotations

import os
import resource
import sys
import sysconfig


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


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _readable_by_others(path: str) -> bool:
    """Whether a user with no special rights can read ``path`` (a file, or a folder to list): every
    folder on the way searchable by others, and ``path`` itself readable by them."""
    import stat

    if not path or not os.path.exists(path):
        return False
    parts = os.path.realpath(path).split(os.sep)
    for depth in range(1, len(parts) + 1):
        mode = os.stat(os.sep.join(parts[:depth]) or os.sep).st_mode
        last = depth == len(parts)
        if (stat.S_ISDIR(mode) and not mode & stat.S_IXOTH) or (last and not mode & stat.S_IROTH):
            return False
    return True


def inductor_blocks_the_drop(exercise) -> str | None:
    """The reason to keep root for this grading, or None. Inductor on the CPU compiles C++ against
    the interpreter's headers; where nobody cannot read them (an interpreter under /root, as on the
    course's reference machine), an exercise graded with Inductor could not run at all as nobody."""
    uses_inductor = exercise.compile.get("backend") == "inductor" or any(
        spec.params.get("backend", "inductor" if spec.kind == "speed" else None) == "inductor" for spec in exercise.checks)
    if not uses_inductor or not _running_as_root():
        return None
    include = sysconfig.get_paths().get("include", "")
    if _readable_by_others(include):
        return None
    return f"privileges kept: Inductor compiles C++ against {include}, which nobody cannot read here"


def closed_package_folder(folders=None) -> str | None:
    """The first folder a grading imports code from that nobody cannot enter, or None. Dynamo
    imports parts of torch while it compiles, after the drop; a course kept under a folder closed
    to others (a 0700 home or ``mktemp -d`` folder) would fail every grading as nobody with
    ModuleNotFoundError. ``folders``: torch's and the autograder's package folders by default."""
    if folders is None:
        import torch

        folders = [os.path.dirname(os.path.realpath(torch.__file__)), os.path.dirname(os.path.dirname(os.path.realpath(__file__)))]
    return next((folder for folder in folders if not _readable_by_others(folder)), None)


def packages_block_the_drop() -> str | None:
    """The reason to keep root for every grading here, or None (see ``closed_package_folder``)."""
    if not _running_as_root():
        return None
    folder = closed_package_folder()
    if folder is None:
        return None
    return (f"privileges kept: nobody cannot read {folder} (a folder above it is closed to others); "
            "to grade as nobody, keep the course and its environment where others may read them (chmod o+rx)")


def sandbox(job: dict, workdir: str) -> tuple[bool, str]:
    """Become nobody if root (and not switched off); after it, unreadable stdlib modules say why."""
    wanted = job.get("drop_privileges", True)
    if wanted and _running_as_root():
        preload()
    dropped, how = drop_privileges(workdir, wanted=wanted)
    if dropped and _stdlib_unreadable():
        sys.meta_path.append(_Unavailable)
    return dropped, how

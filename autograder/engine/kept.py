"""What the grader keeps from one grading for the next: measured truths, and whole reference runs.

**Truths.** A prediction exercise's truth (``answers``) is measured live: the master runs the experiment the
learner must predict (compiles, recompiles, guard counts), often seconds of a grading that would
otherwise take a fraction of one. The result depends only on the master, the parameters, torch and
the course's own code, so the reference child keeps it on disk and a later grading reads it back.

The folder is root's alone (mode 0700), and the cache is used only when the learner child will run
under a user of its own and every other grading on the machine does too
(``identity.some_grading_keeps_root``): that user can neither read a truth from it nor write one
into it, so no submission can learn an answer there or plant one for a later grading. A submission
that ran as root could do both (``torch.save`` writes from C++, out of the audit hook's sight), so
where any grading keeps root (a non-root grader, the drop switched off, Python's headers closed to
others so that Inductor gradings keep root, as on the course's reference machine), nothing is kept
(``AUTOGRADER_TRUTH_CACHE=0`` turns it off everywhere).

A key is the SHA-256 of the master's bytes, of the course's own source files (name, size, time of
change), of torch's and Python's versions, the device, the truth's name and its parameters; the
value is plain data, as a frame of the grading channel (``channel.encode``), read back with the same
strict loader.

**Reference runs** (``ReferenceStore``). A grading with a seed given by its caller (``dev check``,
the tests, a batch with ``--seed``, a regrade: gradings that repeat a seed; a learner's check draws a
new one each time and never repeats) keeps the reference child's two frames, so that the next
grading of that exercise with that seed forks no reference child at all. The judge looks the entry
up before it forks anything, by a key made without reading the master (its path, size, time of
change and inode; the course's code; torch's and Python's versions; the seed), so that the learner
child's memory never holds a byte of it, opens the file then, and reads it only after the learner
child has been forked (the learner child closes every inherited descriptor before any learner code
runs). Same folder rules as the truths. A reference run that wrote files for the learner (a schedule
that writes the inputs the learner's code reads) is not kept: those files would be missing.

**Learned modules** (``learned_modules``). The names of the modules torch imports on its first
compile, which a warm worker learns from a throwaway child (``engine/zygote.py``), are kept under
the same key parts (the course's code, torch's and Python's versions, the device) and the same
folder rules: a worker started later imports them before it says it is ready, without learning them
again. Each name must look like a module name; the worker only ever imports them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from pathlib import Path

SWITCH = "AUTOGRADER_TRUTH_CACHE"  # "0": nothing is kept, neither truths nor reference runs
FOLDER_NAME = "autograder-truths"
REFERENCE_FOLDER_NAME = "autograder-references"
MAX_VALUE_BYTES = 1 << 20
MAX_ENTRIES = 20_000
MAX_REFERENCE_BYTES = 16 << 20
MAX_REFERENCES = 2_000  # beyond it, the oldest quarter goes
MODULES_FOLDER_NAME = "autograder-modules"
MAX_MODULE_NAMES = 20_000
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
_PACKAGE = Path(__file__).resolve().parent.parent


def _switched_on() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


@functools.lru_cache(maxsize=1)
def _course_code_digest() -> str:
    """The course's own code, by each file's name, size and time of change: read once per process (a
    warm worker computes it before it forks any grading), as the code a process runs is the code it
    imported when it started."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(_PACKAGE)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _environment() -> list[str]:
    """What a kept value depends on besides the master and its parameters: the course's code, torch's
    and Python's versions, the device."""
    import torch

    return [_course_code_digest(), torch.__version__, str(torch.version.git_version), sys.version,
            str(torch.cuda.is_available())]


def _write_whole(path: str, body: bytes) -> None:
    """``body`` at ``path``, all or nothing (a temporary file beside it, then renamed); raises OSError."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600), "wb") as handle:
        handle.write(body)
    os.replace(temporary, path)


class TruthCache:
    """``remember(name, params, compute)``: the plain value of ``compute()``, from the folder when a
    grading before this one measured it. ``folder`` None: always computed."""

    def __init__(self, folder: str | None, master_path: str):
        self.folder = folder
        self.hits = self.misses = 0
        self._base = None
        if folder is not None:
            base = hashlib.sha256()
            base.update(Path(master_path).read_bytes())
            for part in _environment():
                base.update(b"\0" + part.encode())
            self._base = base

    def _path(self, name: str, params) -> str | None:
        if self._base is None:
            return None
        try:
            shown = json.dumps(params, sort_keys=True, allow_nan=True)
        except (TypeError, ValueError):
            return None  # parameters that are not plain JSON: measured every time
        key = self._base.copy()
        key.update(b"\0" + name.encode() + b"\0" + shown.encode())
        return os.path.join(self.folder, key.hexdigest())

    def remember(self, name: str, params, compute):
        from autograder.sandbox import channel
        from autograder.sandbox.plain import to_plain

        path = self._path(name, params)
        if path is not None:
            try:
                with open(path, "rb") as handle:
                    value = channel.decode(handle.read(MAX_VALUE_BYTES + 1))
                self.hits += 1
                return value
            except (OSError, channel.ChannelError):
                pass  # not there yet, or unreadable: measured again, and written anew
        value = to_plain(compute())
        self.misses += 1
        if path is not None:
            self._write(path, value)
        return value

    def _write(self, path: str, value) -> None:
        from autograder.sandbox import channel

        try:
            body = channel.encode(value)
            if len(body) > MAX_VALUE_BYTES or len(os.listdir(self.folder)) >= MAX_ENTRIES:
                return
            _write_whole(path, body)
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written is only slower


def open_cache(wanted: bool, exercise, master_path: str) -> TruthCache:
    """The cache for this reference run: used only when the judge said the learner child runs under
    a user of its own (``wanted``), no grading on this machine keeps root (one that did could read the
    folder, or plant a truth in it from C++), and a root-only folder exists; otherwise one that
    always computes."""
    from autograder.sandbox import identity

    folder = None
    if wanted and _switched_on() and identity.some_grading_keeps_root() is None:
        folder = identity.root_only_folder(FOLDER_NAME)
    return TruthCache(folder, master_path)


class ReferenceStore:
    """The reference child's frames of one (master, seed), kept in a root-only folder (see above)."""

    def __init__(self, folder: str, key: str):
        self.folder, self.path = folder, os.path.join(folder, key)

    @classmethod
    def for_grading(cls, master_path: str, seed: int, eligible: bool, timed: bool = True) -> "ReferenceStore | None":
        """The store for this grading, or None when nothing may be kept (no drop, no seed of the
        caller's, switched off, no root-only folder). ``timed``: whether the grading may run timing
        checks, whose reference parts prepare inputs of their own (a structure-only run keeps less)."""
        from autograder.sandbox import identity

        if not (eligible and _switched_on() and identity.some_grading_keeps_root() is None):
            return None
        folder = identity.root_only_folder(REFERENCE_FOLDER_NAME)
        if folder is None:
            return None
        info = os.stat(master_path)
        key = hashlib.sha256("\0".join([os.path.realpath(master_path), str(info.st_size), str(info.st_mtime_ns), str(info.st_ino),
                                        *_environment(), str(int(seed)), "timed" if timed else "structure"]).encode()).hexdigest()
        return cls(folder, key)

    def open(self) -> int | None:
        """A descriptor on the kept frames, or None; read it with ``read`` only after the learner fork."""
        try:
            return os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None

    @staticmethod
    def read(fd: int) -> tuple[bytes, bytes] | None:
        try:
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(MAX_REFERENCE_BYTES + 1)
        except OSError:
            return None
        if len(data) < 8 or len(data) > MAX_REFERENCE_BYTES:
            return None
        size = int.from_bytes(data[:8], "big")
        if size > len(data) - 8:
            return None
        return data[8:8 + size], data[8 + size:]

    def keep(self, learner_blob: bytes, judge_blob: bytes) -> None:
        body = len(learner_blob).to_bytes(8, "big") + learner_blob + judge_blob
        if len(body) > MAX_REFERENCE_BYTES:
            return
        try:
            entries = os.listdir(self.folder)
            if len(entries) >= MAX_REFERENCES:
                paths = [os.path.join(self.folder, name) for name in entries]
                for old in sorted(paths, key=lambda p: os.stat(p).st_mtime)[: MAX_REFERENCES // 4]:
                    os.unlink(old)
            _write_whole(self.path, body)
        except OSError:
            pass  # a store that cannot be written is only slower


def wrote_for_the_learner(scratch: str) -> bool:
    """Whether the reference child (root) left files in the learner's scratch folder."""
    try:
        return any(entry.stat(follow_symlinks=False).st_uid == 0 for entry in os.scandir(scratch))
    except OSError:
        return True


def _learned_modules_path() -> str | None:
    """Where this machine keeps the learned module names for this course code and torch, or None
    when nothing may be kept (the rules of the truths: every grading drops root, a root-only folder)."""
    from autograder.sandbox import identity

    if not _switched_on() or identity.some_grading_keeps_root() is not None:
        return None
    folder = identity.root_only_folder(MODULES_FOLDER_NAME)
    if folder is None:
        return None
    return os.path.join(folder, hashlib.sha256("\0".join(["modules", *_environment()]).encode()).hexdigest())


def learned_modules() -> list[str] | None:
    """The module names a warm worker learned before under the same key, or None (none kept, or
    what is there is not a list of module names)."""
    path = _learned_modules_path()
    if path is None:
        return None
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
            names = json.loads(handle.read(MAX_VALUE_BYTES + 1))
    except (OSError, ValueError):
        return None
    if (not isinstance(names, list) or not names or len(names) > MAX_MODULE_NAMES
            or not all(isinstance(name, str) and _MODULE_NAME.match(name) for name in names)):
        return None
    return names


def keep_learned_modules(names: list[str]) -> None:
    """Keep the names a warm worker learned and imported, for the workers started after it."""
    path = _learned_modules_path()
    if path is None or not names:
        return
    try:
        _write_whole(path, json.dumps(list(names)).encode())
    except (OSError, TypeError, ValueError):
        pass  # not kept: the next worker learns them again

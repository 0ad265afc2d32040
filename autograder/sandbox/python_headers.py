"""Python's C headers where a grading's own user can read them.

Inductor on the CPU compiles C++ against the interpreter's headers (``sysconfig``'s ``include``).
An interpreter under a folder closed to others (``/root/.pyenv``, as on the course's reference
machine) leaves them unreadable to the user a grading runs as, and g++ stops at an include folder
it cannot open. Rather than keep root for such gradings (which turns off every root-only store,
``engine/kept.py``), the grader, as root, makes a public copy once: ``/run/autograder-python-headers/
<digest>``, every folder root's and closed to writes by others, so no grading can plant a header
that another grading's C++ would include. ``readable_copy`` finds or makes it and checks it file by
file against the interpreter's own; ``use`` (in the learner child, after the drop) points
``sysconfig``, and so Inductor, at it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sysconfig

from autograder.sandbox.permissions import readable_by_others, running_as_root

PARENTS = ("/run",)  # root's alone to write in: nobody else can make the folder first
FOLDER_NAME = "autograder-python-headers"
_HEADER_KEYS = ("include", "platinclude")

_found: dict = {}


def interpreter_headers() -> str:
    return sysconfig.get_paths().get("include", "")


def readable_copy() -> str | None:
    """A folder with the interpreter's headers that every user may read: the interpreter's own
    where others may read it, else root's public copy (made now when missing), or None where
    neither can be had (not root, no such parent, a copy that does not match)."""
    include = interpreter_headers()
    if include in _found:
        return _found[include]
    if readable_by_others(include):
        found = include
    elif not running_as_root() or not os.path.isfile(os.path.join(include, "Python.h")):
        found = None
    else:
        found = next((folder for folder in (_copy_under(parent, include) for parent in PARENTS) if folder), None)
    _found[include] = found
    return found


def _copy_under(parent: str, include: str) -> str | None:
    signature = _tree_signature(include)
    digest = hashlib.sha256(f"{os.path.realpath(include)}\0{signature}".encode()).hexdigest()[:16]
    top = os.path.join(parent, FOLDER_NAME)
    try:
        os.mkdir(top, 0o755)
    except FileExistsError:
        pass
    except OSError:
        return None
    if not _root_owned_closed(top):
        return None
    folder = os.path.join(top, digest, os.path.basename(include.rstrip(os.sep)))
    if not os.path.lexists(os.path.dirname(folder)):
        staging = os.path.join(top, f".{digest}.{os.getpid()}")
        try:
            shutil.rmtree(staging, ignore_errors=True)
            os.mkdir(staging, 0o755)
            shutil.copytree(include, os.path.join(staging, os.path.basename(folder)), symlinks=False)
            for here, folders, files in os.walk(staging):
                os.chmod(here, 0o755)
                for name in files:
                    os.chmod(os.path.join(here, name), 0o644)
            os.rename(staging, os.path.dirname(folder))
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another grader made it first, or the disk is full
    return folder if _matches(folder, include, signature) else None


def _tree_signature(folder: str) -> str:
    """Names and sizes of every file under ``folder``, in order."""
    entries = []
    for here, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(here, name)
            entries.append(f"{os.path.relpath(path, folder)}\0{os.stat(path).st_size}")
    return "\n".join(entries)


def _root_owned_closed(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return info.st_uid == 0 and not info.st_mode & 0o022 and not stat.S_ISLNK(info.st_mode)


def _matches(copy: str, include: str, signature: str) -> bool:
    """Every folder and file of ``copy`` root's, not a link, closed to writes by others, and the same
    names with the same bytes as the interpreter's headers (whose ``_tree_signature`` is ``signature``)."""
    if not all(_root_owned_closed(path) for path in (os.path.dirname(copy), copy)):
        return False
    for here, folders, files in os.walk(copy):
        for name in folders + files:
            if not _root_owned_closed(os.path.join(here, name)):
                return False
    try:
        if _tree_signature(copy) != signature:
            return False
        for here, _folders, files in os.walk(include):
            for name in files:
                original = os.path.join(here, name)
                with open(original, "rb") as mine, open(os.path.join(copy, os.path.relpath(original, include)), "rb") as theirs:
                    if mine.read() != theirs.read():
                        return False
    except OSError:
        return False
    return True


def use(folder: str) -> None:
    """From now on, in this process, ``sysconfig`` names ``folder`` as the headers' folder (Inductor
    asks it for both ``include`` and the ``posix_prefix`` scheme's)."""
    original_path, original_paths = sysconfig.get_path, sysconfig.get_paths

    def get_path(name, *args, **kwargs):
        return folder if name in _HEADER_KEYS else original_path(name, *args, **kwargs)

    def get_paths(*args, **kwargs):
        paths = original_paths(*args, **kwargs)
        return {**paths, **{key: folder for key in _HEADER_KEYS if key in paths}}

    sysconfig.get_path, sysconfig.get_paths = get_path, get_paths

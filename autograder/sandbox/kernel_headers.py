"""Inductor's precompiled C++ header: built once by the grader, only ever read by gradings.

Inductor compiles every CPU kernel against ``torch/csrc/inductor/cpp_prefix.h``, which pulls in a
large part of ATen's headers; parsed afresh for each kernel, that header is most of a kernel's g++
time. Inductor can compile it once into a ``.gch`` (about 150 MB) and include that instead, but it
keeps the file in one folder per machine user (``/tmp/torchinductor_USER/precompiled_headers``),
which a grading must neither write (a submission would plant a header that a later grading's
kernels include) nor fill (150 MB is more than a grading may write: a truncated file breaks every
later compile with the same flags). So gradings used to compile without it.

Here the warm worker, as root and before any learner code, builds the header in a throwaway fork
of itself (``prepare``), set up as a grading is (the same Python headers, a private cache folder),
into ``/run/autograder-kernel-headers``: root's alone to write, public to read, like the public copy
of Python's headers (``python_headers``). The fork records each call that asked Inductor for the
header (the header, the compiler's command line, the build options) and the file it got. A grading
forked from the worker (``use_prebuilt``) is answered from that record alone: where its call is one
of those, its kernels include the prebuilt header; any other call (other flags) gets no header and
compiles as before. A grading never builds, writes or locks anything in that folder.

As root it is used only where every grading on the machine drops to a user of its own
(``identity.some_grading_keeps_root``): a grading running as root could rewrite the file. A grader
that is not root runs every submission as its own user, who could rewrite the file for the
gradings after it: there it is used only with ``AUTOGRADER_KERNEL_HEADERS=own``, which ``./course``
sets for a learner grading their own work on their own machine (nothing but their own progress is
at stake there, docs/THREAT_MODEL.md), in Inductor's own folder for that user, the one the
learner's own compiles (the lessons) use; a folder or file someone else owns or may write is
refused. A batch of other people's work run by a user who is not root never shares it.

The checks that time compiling (``compile_cost``, ``warm_start``) compile without it, so the compile
times their thresholds were studied on do not change.
"""

from __future__ import annotations

import os
import pickle
import select
import shutil
import stat
import tempfile
import time
from pathlib import Path

SWITCH = "AUTOGRADER_KERNEL_HEADERS"  # "0": never; "own": also where the grader is not root (a learner's own machine)
PARENTS = ("/run",)  # root's alone to write in: nobody else can make the folder first
FOLDER_NAME = "autograder-kernel-headers"
_known: dict = {}  # (header, command line, build options) -> the prebuilt header's path
answered = {"prebuilt": 0, "without": 0}  # in a grading: Inductor's requests, by answer


def prepare(timeout: float = 300.0) -> str | None:
    """In the warm worker, as root, before any learner code runs: find or build the header and record
    the calls it answers. Returns why it is not used here, or None once gradings forked from now on
    will include it."""
    if _known:
        return None
    mode = os.environ.get(SWITCH, "1")
    if mode == "0":
        return f"{SWITCH}=0"
    from autograder.sandbox import identity
    from autograder.sandbox.permissions import running_as_root

    if running_as_root():
        why = identity.some_grading_keeps_root()
        if why:
            return why
        folder = _public_folder()
    elif mode == "own":
        folder = _own_folder()
    else:
        return f"the grader is not root, so every submission could rewrite it ({SWITCH}=own shares it among one learner's gradings)"
    if folder is None:
        return "no folder that only this grader's user may write"
    fingerprint = _fingerprint()
    calls = _read_record(folder, fingerprint)  # an earlier worker's build on this machine: no fork
    if calls is None:
        calls = _record_in_fork(folder, timeout)
        if not calls:
            # A header cut short (the build stopped, the disk full) would break every later compile that
            # includes it, and a later build would take it as done: start the folder afresh next time.
            _clear(folder)
            return "the throwaway build of the header failed"
        calls = [(header, command, _plain(options), path) for header, command, options, path in calls]
        _write_record(folder, fingerprint, calls)
    for header, command, options, path in calls:
        key = _key(header, command, options)
        if key is not None and path and _sound(folder, path):
            _known[key] = path
    return None if _known else "the header built is not this grader's user's alone"


def builds_cpu_kernels(job: dict) -> bool:
    """Whether this grading may compile C++ kernels with Inductor on the CPU: its exercise compiles
    with Inductor, or it may time a speed check that does. (A cache test such as ``warm_start``
    compiles models made of library calls, which need no check of the CPU.)"""
    import torch

    from autograder.format.exercise import parse_master

    if torch.cuda.is_available():
        return False
    try:
        exercise = parse_master(Path(job["master"]))
    except Exception:  # noqa: BLE001 - the grading itself reports a master it cannot read
        return False
    return exercise.compile.get("backend") == "inductor" or (bool(job.get("costly", True)) and any(
        spec.kind == "speed" and spec.params.get("backend", "inductor") == "inductor" for spec in exercise.checks))


def use_prebuilt() -> bool:
    """In a grading: answer Inductor's requests for a precompiled header from the record alone.
    Returns whether Inductor should ask at all (``cpp_cache_precompile_headers``)."""
    if not _known:
        return False
    import torch._inductor.codecache as codecache

    codecache._precompile_header = _prebuilt_only
    return True


def ready() -> bool:
    return bool(_known)


def _prebuilt_only(header: str, hashable_cmd_line: str, **options) -> str | None:
    """Inductor's ``_precompile_header``, answered without building: the prebuilt header for a call
    the grader recorded, else None (the kernel is compiled without one)."""
    key = _key(header, hashable_cmd_line, options)
    path = _known.get(key) if key is not None else None
    answered["prebuilt" if path else "without"] += 1
    return path


def _key(header: str, command: str, options):
    try:
        key = (header, command, _plain(options))
        hash(key)
    except TypeError:
        return None  # an option that cannot be compared: never matched
    return key


def _plain(value):
    """``value`` as data that JSON keeps and that compares the same after the round trip: options
    as sorted pairs, lists as tuples, any other object (Inductor's instruction-set object) by its
    type and text."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return f"{type(value).__name__}:{value}"


RECORD_NAME = "record.json"


def _fingerprint() -> dict:
    """What the recorded calls depend on besides the course: torch, Python, the headers a grading
    compiles against, the CPU's instruction sets and the compiler."""
    import sys

    import torch
    from torch._inductor.cpp_builder import get_cpp_compiler
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    from autograder.sandbox import python_headers
    from autograder.sandbox.cpu_check import check_cpu_for_inductor

    check_cpu_for_inductor()  # done where a root-made program is run, before pick_vec_isa would do it anywhere
    compiler = shutil.which(get_cpp_compiler()) or get_cpp_compiler()
    try:
        info = os.stat(compiler)
        compiler_id = [os.path.realpath(compiler), info.st_size, info.st_mtime_ns]
    except OSError:
        compiler_id = [compiler]
    return {"torch": torch.__version__, "torch_folder": os.path.dirname(os.path.realpath(torch.__file__)), "python": sys.version, "headers": python_headers.readable_copy() or python_headers.interpreter_headers(),
            "isa": _plain(pick_vec_isa()), "compiler": compiler_id}


def _read_builds(folder: str) -> dict:
    """The record's builds, by the digest of their fingerprint; empty when there is none or it is not
    sound (not root's alone, not ours, unreadable)."""
    import json

    path = os.path.join(folder, RECORD_NAME)
    if not _owned_closed(path):
        return {}
    try:
        with open(path, encoding="utf-8") as file:
            builds = json.load(file).get("builds")
    except (OSError, ValueError, AttributeError, RecursionError):
        return {}
    return builds if isinstance(builds, dict) else {}


def _digest(fingerprint: dict) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()


def _read_record(folder: str, fingerprint: dict) -> list | None:
    """The calls an earlier build recorded for this fingerprint (each install of torch on the machine
    has its own: the command lines name its folder), if every header they name is still sound."""
    import json

    build = _read_builds(folder).get(_digest(fingerprint))
    try:
        if build.get("fingerprint") != json.loads(json.dumps(fingerprint)):
            return None
        calls = [(str(h), str(c), _plain(o), str(p)) for h, c, o, p in build["calls"]]
    except (AttributeError, ValueError, TypeError, KeyError, RecursionError):
        return None
    return calls if calls and all(_sound(folder, path) for *_, path in calls) else None


MAX_BUILDS = 8  # installs of torch (virtual environments) the record remembers; the oldest goes first


def _write_record(folder: str, fingerprint: dict, calls: list) -> None:
    import json

    builds, digest = _read_builds(folder), _digest(fingerprint)
    builds.pop(digest, None)
    builds[digest] = {"fingerprint": fingerprint, "calls": calls}  # last: the newest
    builds = dict(list(builds.items())[-MAX_BUILDS:])
    try:
        handle, staging = tempfile.mkstemp(dir=folder, prefix=".record-")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump({"builds": builds}, file)
        os.chmod(staging, 0o644)
        os.replace(staging, os.path.join(folder, RECORD_NAME))
    except OSError:
        pass  # the next worker builds (finds) it again


def _public_folder() -> str | None:
    for parent in PARENTS:
        folder = os.path.join(parent, FOLDER_NAME)
        try:
            os.mkdir(folder, 0o755)
        except FileExistsError:
            pass
        except OSError:
            continue
        if _owned_closed(folder, directory=True):
            return folder
    return None


def _own_folder() -> str | None:
    """Inductor's own folder for this user's precompiled headers (``/tmp/torchinductor_USER/...``),
    made when missing; None where it or its parent belongs to someone else or is open to writes
    by others (a folder another user made first under /tmp)."""
    import torch._inductor.codecache as codecache

    folder = codecache._HEADER_DIR
    try:
        os.makedirs(folder, 0o755, exist_ok=True)
    except OSError:
        return None
    if all(_owned_closed(path, directory=True) for path in (os.path.dirname(folder), folder)):
        return folder
    return None


def _clear(folder: str) -> None:
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name.endswith((".h", ".gch", ".json")) and not os.path.islink(path) and os.path.isfile(path):
            try:
                os.remove(path)
            except OSError:
                pass


def _owned_closed(path: str, directory: bool = False) -> bool:
    """``path`` is a plain file (or folder) of this process's user, closed to writes by others."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    kind = stat.S_ISDIR if directory else stat.S_ISREG
    return kind(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def _sound(folder: str, path: str) -> bool:
    """The header and its compiled form are plain files directly in ``folder``, this user's (root's,
    for a root grader), closed to writes by others."""
    return os.path.dirname(path) == folder and _owned_closed(path) and _owned_closed(path + ".gch")


def _record_in_fork(folder: str, timeout: float) -> list | None:
    """Build in a throwaway fork (nothing of Inductor's compiled state reaches the worker) and read
    back the calls it recorded."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the fork, which leaves with os._exit
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps(_build(folder))
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
            code = 0
        except BaseException:  # noqa: BLE001 - any failure: the worker goes on without the header
            pass
        finally:
            os._exit(code)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, 9)
                return None
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    try:
        return pickle.loads(b"".join(chunks))  # noqa: S301 - from the grader's own fork, before any learner code
    except Exception:  # noqa: BLE001
        return None


def _sample(x):
    return (x.sin() * 2 + x.cos()).sum(1)  # a fused loop and a reduction: a C++ kernel with the prefix header


def _build(folder: str) -> list:
    """In the fork: compile a small function with Inductor as a grading would, the header going to
    ``folder``; returns each request for the header as (header, command line, options, path)."""
    import torch
    import torch._inductor.codecache as codecache
    import torch._inductor.config as inductor_config

    from autograder.sandbox import identity, python_headers

    copy = python_headers.readable_copy()
    if copy and copy != python_headers.interpreter_headers():
        python_headers.use(copy)  # the include folder a grading's command line names
    scratch = tempfile.mkdtemp(prefix="autograder-kernel-headers-")
    try:
        identity.compile_caches_in(scratch)
        codecache._HEADER_DIR = folder
        codecache._HEADER_LOCK_DIR = os.path.join(folder, "locks")
        inductor_config.cpp_cache_precompile_headers = True
        calls: list = []
        original = codecache._precompile_header

        def recording(header, hashable_cmd_line, **options):
            path = original(header, hashable_cmd_line, **options)
            calls.append((header, hashable_cmd_line, options, path))
            return path

        codecache._precompile_header = recording
        with torch.no_grad():
            torch.compile(_sample, backend="inductor")(torch.randn(8, 8))
        return calls
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

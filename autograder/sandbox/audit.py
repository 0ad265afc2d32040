"""A PEP 578 audit hook for the process that runs learner code: it refuses what no fix needs.

``install(learner_files, workdir)`` is called once, right before the submission's code first
runs. From then on, when an audited action comes from learner code, the hook raises
PermissionError with a plain message (and remembers it: ``refusals()``), so the action never
happens, even if the submission catches the error. The same action from torch, the standard
library or the grader goes on: Dynamo reads frames and code objects, builds code, and Inductor
starts compilers, all while compiling the learner's function.

Who did it, per kind of action:
- *introspection* (frames, code and function objects, ``gc``, tracing and audit hooks, ``exec``
  and ``compile``): the innermost Python frame that is not generated code decides. The one who
  asks gets the frame, so ``logging`` looking up its caller, ``dataclasses`` building an
  ``__init__`` or ``traceback`` printing an error are the standard library's own business. Frames
  of generated code (``<string>``, ``<eval_with_key>``) are skipped, and after one, so are the
  standard library's: code that a learner had built by ``eval`` in some library counts as theirs;
- *effects* (processes, signals to other processes, sockets, ``ctypes``, writing files outside
  ``workdir``, raising resource limits): the innermost frame that is neither the standard library
  nor generated code decides, so ``subprocess.run`` or ``pathlib.Path.write_text`` called by
  learner code are refused as if the learner had called ``os.posix_spawn`` or ``open`` directly.

What it cannot see: an action done for the learner by torch's own code (a DataLoader's worker
processes) counts as torch's, and what raises no audit event at all: ``torch.save`` writes
through C++, ``os.write`` to an open descriptor and attribute writes on classes (other than a
function's code) are not audited. The static policy refuses the plain forms of those, the
learner's process holds nothing the verdict depends on, and the process is contained (limits,
identity, namespaces).
Hooks cannot be removed; the hook's state lives in its closure, frozen.
"""

from __future__ import annotations

import os
import sys
import sysconfig

# Introspection: the innermost (non-generated) frame decides.
_INTROSPECTION = {
    "sys._getframe": "reading the interpreter's frames",
    "sys._current_frames": "reading the interpreter's frames",
    "object.__getattr__": "reading a frame, a traceback, a generator's frame or a function's code",
    "object.__setattr__": "replacing a function's code or defaults",
    "object.__delattr__": "deleting a function's code or defaults",
    "gc.get_objects": "walking the interpreter's objects",
    "gc.get_referrers": "walking the interpreter's objects",
    "gc.get_referents": "walking the interpreter's objects",
    "sys.addaudithook": "adding an audit hook",
    "sys.settrace": "tracing the interpreter",
    "sys.setprofile": "profiling the interpreter",
    "code.__new__": "building a code object",
    "function.__new__": "building a function from a code object",
    "exec": "running code built at run time",
    "compile": "building code at run time",
    "marshal.loads": "loading code objects",
    "marshal.load": "loading code objects",
    "pickle.find_class": "loading pickled code",
    "cpython.PyInterpreterState_Clear": "ending the interpreter",
}
# Effects: the innermost frame outside the standard library decides.
_EFFECTS = {
    "os.system": "starting a process",
    "os.exec": "replacing the process",
    "os.posix_spawn": "starting a process",
    "os.spawn": "starting a process",
    "os.fork": "starting a process",
    "os.forkpty": "starting a process",
    "pty.spawn": "starting a process",
    "subprocess.Popen": "starting a process",
    "os.killpg": "signalling other processes",
    "socket.__new__": "opening a network socket",
    "socket.socketpair": "opening a socket",
    "socket.connect": "connecting to the network",
    "socket.bind": "listening on the network",
    "socket.getaddrinfo": "looking up a network address",
    "socket.gethostbyname": "looking up a network address",
    "mmap.__new__": "mapping memory",
    "resource.setrlimit": "changing the grading's limits",
    "resource.prlimit": "changing the grading's limits",
    "os.putenv": "changing the environment",
    "os.unsetenv": "changing the environment",
    "os.chdir": "leaving the grading's folder",
}
_SIGNALS = {"os.kill", "signal.pthread_kill"}  # refused towards other processes only
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_FILE_CHANGES = {"os.remove", "os.rename", "os.rmdir", "os.link", "os.symlink", "os.truncate", "os.chmod", "os.chown",
                 "os.utime", "os.mkdir", "shutil.rmtree", "shutil.copyfile", "shutil.move", "os.setxattr", "os.removexattr"}

_STATE: dict = {}  # set once by install(): {"installed": True}


def _stdlib_roots() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths()
    roots = {os.path.join(paths[key], "") for key in ("stdlib", "platstdlib") if key in paths}
    roots |= {os.path.join(os.path.realpath(root), "") for root in roots}
    packages = {os.path.join(paths[key], "") for key in ("purelib", "platlib") if key in paths}
    try:
        import site

        packages |= {os.path.join(p, "") for p in site.getsitepackages()}
    except (AttributeError, ImportError):
        pass
    packages |= {os.path.join(os.path.realpath(p), "") for p in packages}
    return tuple(sorted(roots)), tuple(sorted(packages))


def install(learner_files: set[str], workdir: str) -> None:
    """Install the hook in this process (once; a second call does nothing). ``learner_files``:
    the paths the submission's code was compiled from (``co_filename``); ``workdir``: the folder
    the submission may write in."""
    if _STATE.get("installed"):
        return
    _STATE["installed"] = True
    learner = frozenset({os.path.abspath(p) for p in learner_files} | {os.path.realpath(p) for p in learner_files}
                        | set(learner_files))
    scratch = os.path.join(os.path.realpath(workdir), "")
    allowed_writes = (scratch, "/dev/null", "/dev/stdout", "/dev/stderr")
    own_pid = os.getpid()
    stdlib, packages = _stdlib_roots()
    kinds: dict = {}  # co_filename -> "learner" | "stdlib" | "generated" | "other"
    busy: set = set()  # thread ids inside the hook: events the hook itself raises are not judged
    refused: list = []
    getframe = sys._getframe
    get_ident = __import__("_thread").get_ident
    realpath, isabs, join, getcwd = os.path.realpath, os.path.isabs, os.path.join, os.getcwd

    def kind_of(filename: str) -> str:
        known = kinds.get(filename)
        if known is None:
            if filename in learner:
                known = "learner"
            elif filename.startswith("<frozen "):
                known = "stdlib"
            elif filename.startswith("<"):
                known = "generated"
            elif filename.startswith(stdlib) and not filename.startswith(packages):
                known = "stdlib"
            else:
                known = "other"
            kinds[filename] = known
        return known

    def decider(skip_stdlib: bool) -> str:
        """The kind of the innermost frame that decides who did it (see the module docstring)."""
        frame = getframe(3)  # the audited code: decider <- judge <- hook <- (the event) <- caller
        after_generated = False
        while frame is not None:
            kind = kind_of(frame.f_code.co_filename)
            if kind == "generated":
                after_generated = True
            elif kind != "stdlib" or not (skip_stdlib or after_generated):
                return kind
            frame = frame.f_back
        return "other"

    def writes(args) -> str | None:
        """The path an `open` event writes to, when it writes (None otherwise)."""
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if isinstance(path, int):
            return f"file descriptor {path}"
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if not writing or path is None:
            return None
        text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
        full = realpath(text if isabs(text) else join(getcwd(), text))
        if full.startswith(allowed_writes) or full + os.sep == scratch:
            return None
        return full

    def judge(event: str, args) -> str | None:
        if event in _INTROSPECTION:
            return _INTROSPECTION[event] if decider(False) == "learner" else None
        if event in _EFFECTS:
            return _EFFECTS[event] if decider(True) == "learner" else None
        if event in _SIGNALS:
            pid = args[0] if event == "os.kill" and args else own_pid
            if pid != own_pid and pid != 0 and decider(True) == "learner":
                return "signalling another process"
            return None
        if event == "open":
            target = writes(args)
            if target is not None and decider(True) == "learner":
                return f"opening {target} for writing (your code may write only in the grading's own folder)"
            path = args[0] if args else None
            if target is None and isinstance(path, (str, bytes)) and os.fsdecode(path).startswith("/proc/") \
                    and decider(True) == "learner":
                return f"reading {os.fsdecode(path)} (the state of the grading's processes)"
            return None
        if event in _FILE_CHANGES:
            for path in args[:2]:
                if isinstance(path, (str, bytes, os.PathLike)):
                    text = os.fsdecode(path)
                    full = realpath(text if isabs(text) else join(getcwd(), text))
                    if not full.startswith(scratch) and decider(True) == "learner":
                        return f"changing {full} (your code may change files only in the grading's own folder)"
            return None
        if event.startswith("ctypes."):
            return "calling native code through ctypes" if decider(True) == "learner" else None
        return None

    watched = frozenset(_INTROSPECTION) | frozenset(_EFFECTS) | frozenset(_SIGNALS) | frozenset(_FILE_CHANGES) | {"open"}

    def hook(event: str, args) -> None:
        if event not in watched and not event.startswith("ctypes."):
            return
        me = get_ident()
        if me in busy:
            return
        busy.add(me)
        try:
            # The common case first: the grader or torch reading a code object (Dynamo, the
            # integrity watch), whose file is already known not to be the learner's. That is
            # what judge() would decide for it too, without three more calls.
            if event in _INTROSPECTION and kinds.get(getframe(1).f_code.co_filename) == "other":
                return
            why = judge(event, args)
        finally:
            busy.discard(me)
        if why is not None:
            message = f"The grader refused {why}: no fix needs it ({event})."
            if len(refused) < 50:
                refused.append(message)
            raise PermissionError(message)

    def refusals() -> list[str]:
        return list(refused)

    _STATE["refusals"] = refusals
    sys.addaudithook(hook)


def refusals() -> list[str]:
    """The refusals since ``install`` (each a sentence for the learner), in order; at most 50."""
    return _STATE["refusals"]() if "refusals" in _STATE else []

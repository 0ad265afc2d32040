"""The static policy: what a submission may contain, checked before any of it runs.

An allow-list, not a list of known cheats: a submission may import only the modules a fix in this
course needs, may touch private names only where torch's own documentation points learners (a
short list, each entry saying why), and may not use the builtins that build names or code at run
time, reach the interpreter's frames, or rebind what it imported. ``check(source, exercise)``
returns a Finding per problem, each with its line, the rule and a message for the learner; an
exercise extends the lists in its header with ``scan_allow`` (see ``ALLOW_FORMS``).

What the policy does not read, and why that is safe:
- the body of an exact top-level ``if __name__ == "__main__":`` block (no ``else``): the grader
  imports the submission under another name, so that code never runs while grading, and a
  learner's demo there (``torch.compile(..., backend="eager")``, prints, ``torch._dynamo.explain``,
  ``sys.argv``) is their own business. The block is read like any other code when the file binds
  ``__name__`` anywhere (itself a finding);
- a ``# BEGIN GRADER`` ... ``# END GRADER`` block identical, byte for byte, to one in the
  exercise's own master: that is the course's code (a master graded as a submission);
- a bare string statement (a docstring): it is never used.

A static policy cannot see names built at run time; the audit hook (``sandbox/audit.py``) refuses
the same actions while the submission runs, and the verdict is decided outside the process that
runs it. The policy's job is the plain forms, with a message that says what to do instead.
"""

from __future__ import annotations

import ast
import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.format import syntax

# -- what a submission may import -------------------------------------------------------------------

# Standard-library modules a fix may import (with their submodules unless listed in DENIED_MODULES).
# Chosen from what the masters, starters and lessons import and what a fair fix plausibly adds:
# maths and data structures, typing, logging and warnings (the logging exercises), time (a learner
# timing their own code), json (reading a calibration file, io_calibration), re and string helpers.
STDLIB_MODULES = {
    "__future__", "abc", "bisect", "cmath", "collections", "contextlib", "copy", "dataclasses", "decimal", "enum", "fractions",
    "functools", "heapq", "itertools", "json", "logging", "math", "numbers", "operator", "random", "re", "statistics",
    "string", "textwrap", "time", "typing", "warnings", "base64",
}
# Third-party modules besides torch: numpy (a custom operator's kernel may call it, custom_op_curve).
THIRD_PARTY_MODULES = {"numpy", "typing_extensions"}
COURSE_MODULES = {"os", "sys", "builtins", "autograder.lab"}  # see RESTRICTED
# torch's public modules are allowed (every component without a leading underscore), except these
# (modules and names), which load native code or pickles, start processes or open connections:
# nothing a fix needs. Checked on imports and on every name reached through an import.
DENIED = {
    "torch.utils.cpp_extension": "it compiles and loads native code",
    "torch.ops.load_library": "it loads native code",
    "torch.classes.load_library": "it loads native code",
    "torch.hub": "it downloads and runs code",
    "torch.multiprocessing": "it starts processes",
    "torch.distributed": "it starts processes and opens connections",
    "torch.package": "it loads pickled code",
    "torch.utils.bottleneck": "it runs a profiler in a subprocess",
    "torch.utils.collect_env": "it runs subprocesses",
    "logging.config": "it reads configuration that can run code, and listens on a socket",
    "logging.handlers": "its handlers write files and open sockets",
    "json.tool": "it is a command-line tool",
    # Library functions that evaluate text as code or reach attributes by a name built at run time:
    # with them a submission could do what the names it may not write would do.
    "typing.get_type_hints": "it evaluates annotations written as text, which runs code",
    "functools.singledispatch": "it evaluates annotations written as text, which runs code",
    "functools.singledispatchmethod": "it evaluates annotations written as text, which runs code",
    "operator.attrgetter": "it reaches attributes by a name built at run time",
    "operator.methodcaller": "it calls methods by a name built at run time",
    "torch.utils.benchmark": "its Timer runs statements written as text (time your code with time.perf_counter)",
    "numpy.load": "it can load pickles, which run code",
    "numpy.ctypeslib": "it loads native code",
    "numpy.f2py": "it compiles and loads native code",
    "numpy.distutils": "it compiles native code",
    "numpy.testing": "it starts processes",
    "numpy.lib.format": "it can load pickles, which run code",
    "numpy.lib.npyio": "it can load pickles, which run code",
    "numpy.memmap": "it maps files into memory",
    "numpy.fromfile": "it reads raw bytes from any file (the process's own memory through /proc)",
    "numpy.save": "it writes files",
    "numpy.savez": "it writes files",
    "numpy.savez_compressed": "it writes files",
    "numpy.savetxt": "it writes files",
    "numpy.lib.stride_tricks": "as_strided reads and writes memory outside an array",
    "string.Formatter": "its get_field reaches attributes by a name built at run time",
    "dataclasses.make_dataclass": "it builds a class from names and methods made at run time",
    "torch.fx.Interpreter": "its fetch_attr reaches attributes by a name built at run time",
    "torch.fx.Transformer": "its fetch_attr reaches attributes by a name built at run time",
    "logging.currentframe": "it hands out the caller's frame",
    "torch.serialization.add_safe_globals": "it lets torch.load run any function a file names",
    "torch.serialization.safe_globals": "it lets torch.load run any function a file names",
}
# Modules that must not be reached through another module's attribute (`torch.os.system`,
# `os.path.os`, `logging.sys.modules`): a component of a dotted name with one of these names, after
# the first, is refused. (Not every standard module: torch.select, torch.signal and
# torch.jit.trace share names with modules that do nothing dangerous.)
REACHABLE_MODULES_REFUSED = {
    "os", "sys", "subprocess", "builtins", "ctypes", "gc", "importlib", "inspect", "threading", "_thread", "socket",
    "shutil", "pickle", "marshal", "types", "io", "pathlib", "tempfile", "multiprocessing", "runpy", "pty", "mmap",
    "resource", "posix", "posixpath", "sysconfig", "site", "traceback", "linecache", "weakref", "atexit", "faulthandler",
    "zipimport", "platform", "pdb", "codeop", "copyreg", "pkgutil", "ntpath", "genericpath",
}
# torch.library functions that register kernels: a submission registers its own operators (a
# namespace such as "course"), never new kernels for torch's own (aten.allclose that always agrees).
LIBRARY_REGISTRARS = {"torch.library.Library", "torch.library.impl", "torch.library.register_kernel",
                      "torch.library.register_fake", "torch.library.register_autograd", "torch.library.define",
                      "torch.library.custom_op", "torch.library.triton_op", "torch.library.register_torch_dispatch",
                      "torch.library.register_vmap", "torch.library.fallthrough_kernel", "torch.library.impl_abstract"}
TORCH_NAMESPACES = ("aten", "prims", "prim", "quantized", "_quantized", "inductor", "higher_order", "mkldnn", "profiler")
# Modules a fix may import but use only in part (RESTRICTED_WHY says what, for the message): what the starting files use them for (os.environ
# and sys.stderr around TORCH_LOGS, sys.argv in a demo) and what a plain program needs. Each entry
# is a name under the module; one ending in ".*" allows what is under it too. Everything else of
# these modules (os.system, os.fork, os.write, sys.modules, sys._getframe, ...) is refused.
RESTRICTED = {
    "os": {"environ", "environ.get", "getenv", "getcwd", "sep", "linesep", "fspath", "cpu_count", "getpid", "path"}
          | {f"path.{name}" for name in ("join", "exists", "isfile", "isdir", "dirname", "basename", "abspath", "splitext",
                                         "split", "getsize", "expanduser", "normpath", "relpath", "sep")},
    "sys": {"argv", "stdout.*", "stderr.*", "executable", "version", "version_info.*", "platform", "maxsize",
            "float_info.*", "byteorder", "exit"},
    # `builtins.print` is how some learners name print when they register it with Dynamo
    # (reorderable_logging_functions, lesson 2); nothing else of the module.
    "builtins": {"print"},
    # The course's lesson toolkit (autograder/lab.py): the prediction exercises run their experiments
    # with it. Only the measuring helpers; not run_reproducer, ablate or bisect, which start processes.
    "autograder": {"lab"} | {f"lab.{name}.*" for name in (
        "tally_calls", "tally_run", "run_case", "frame_report", "guard_report", "guard_names", "guard_count",
        "compilations", "captured_graphs", "call_log", "call_timeline", "GraphTally", "fullgraph_error", "lookup_us",
        "compile_times_table", "config_defaults", "graph_diagram", "starter_line", "job_reruns")},
}
# Why a fix may read the environment but not change it, in the words a learner who set a TORCH_*
# variable needs: in their own run it works (set before `import torch`), in the grading it cannot.
ENVIRONMENT_WHY = ("a fix may read the environment but not change it. torch reads its environment variables "
                   "(TORCH_COMPILE_JOB_ID, TORCH_LOGS, ...) once, when it is imported, and the grader imports torch "
                   "before your file: set the matching setting in code instead (torch.compiler.config.job_id = ..., "
                   "torch._logging.set_logs(...))")

RESTRICTED_WHY = {
    "os": "os.environ, os.path and a few plain queries (os.getcwd, os.cpu_count)",
    "sys": "sys.argv, sys.stdout, sys.stderr and version information",
    "builtins": "builtins.print (write the other builtins by their plain names)",
    "autograder": "the measuring helpers of the lesson toolkit autograder.lab (tally_calls, tally_run, run_case, ...)",
}

# Private torch names a fix may use: public by convention (documented, taught in the lessons), each
# with why. An entry ending in ".*" allows everything under it; other entries are exact, or allow
# what follows them after a "." (a function's own attributes: torch._dynamo.graph_break, called).
ALLOWED_PRIVATE = {
    "torch._dynamo": "the module itself, as in `import torch._dynamo` (only the names below may be used from it)",
    "torch._dynamo.config.*": "Dynamo's settings; the exercise's allow_config decides which may change",
    "torch._dynamo.graph_break": "an explicit graph break (lesson 2)",
    "torch._dynamo.nonstrict_trace": "the escape hatch of chapters 2 and 3",
    "torch._dynamo.error_on_graph_break": "strict regions inside fullgraph=False code (lesson 2)",
    "torch._dynamo.explain": "graph and break counts of a function (lesson 1)",
    "torch._dynamo.reset": "a fresh compile, e.g. in a test function the bisector calls (chapter 8)",
    "torch._dynamo.mark_dynamic": "dynamic shapes (chapter 4)",
    "torch._dynamo.maybe_mark_dynamic": "dynamic shapes (chapter 4)",
    "torch._dynamo.mark_static": "dynamic shapes (chapter 4)",
    "torch._dynamo.mark_unbacked": "data-dependent sizes (chapter 1)",
    "torch._dynamo.decorators.*": "the decorators module behind the names above",
    "torch._dynamo.disable": "a dodge the no_dodge check names (allowed here so that the check can say why it is no fix)",
    "torch._dynamo.allow_in_graph": "a dodge the no_dodge check names",
    "torch._dynamo.is_compiling": "a dodge the no_dodge check names",
    "torch._dynamo.skip_frame": "skipping a frame on purpose (lesson 2)",
    "torch._dynamo.set_fullgraph": "switching fullgraph inside a region (lesson 2)",
    "torch._dynamo.disable_nested_graph_breaks": "nested graph breaks (lesson 2)",
    "torch._dynamo.substitute_in_graph": "a traceable stand-in for a library function (lesson 2)",
    "torch._dynamo.assume_constant_result": "a call Dynamo may treat as a constant (lesson 2)",
    "torch._dynamo.dont_skip_tracing": "tracing into a skipped file (lesson 2)",
    "torch._dynamo.exc.*": "Dynamo's exception types, to catch the error a strict region raises",
    "torch._logging.set_logs": "Dynamo's logs (chapter 7)",
    "torch._check": "telling the compiler a fact about a size (chapter 1)",
    "torch._check_is_size": "telling the compiler a value is a size (chapter 1)",
    "torch._check_with": "torch._check with an exception type (chapter 1)",
    "torch._check_value": "torch._check raising ValueError (chapter 1)",
    "torch._check_index": "torch._check raising IndexError (chapter 1)",
    "torch._check_type": "torch._check raising TypeError (chapter 1)",
    "torch._check_not_implemented": "torch._check raising NotImplementedError (chapter 1)",
    "torch._assert": "an assert that survives tracing",
    "torch.utils._pytree.*": "flattening nested containers (tree_map, tree_flatten): torch's own helper",
    "torch._inductor.config.*": "Inductor's settings, read or patched in a context manager",
    "torch._subclasses.fake_tensor.*": "FakeTensorMode, to reason about shapes without data (chapter 3)",
}
# Private attributes of torch's objects (not modules) a fix may read, each with why.
READABLE_PRIVATE_ATTRIBUTES = {
    "_orig_mod": "the module a compiled module (OptimizedModule) wraps: how torch.compile's docs reach its state_dict",
}
# Names of attributes that hand out frames, code or tracebacks: never needed by a fix, and the
# way to the grader's own objects in the process.
INTROSPECTION_ATTRIBUTES = {
    "gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "cr_frame", "cr_code", "cr_await", "ag_frame", "ag_code",
    "ag_await", "tb_frame", "tb_next", "tb_lasti", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace",
    "f_lasti", "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_firstlineno", "co_lines",
    "func_globals", "func_code", "im_func",
}
# Builtins that build names or code at run time, reach the process's namespaces, or open files.
FORBIDDEN_BUILTINS = {
    "getattr": "it reaches attributes by a name built at run time; write the attribute out (`obj.name`)",
    "setattr": "it sets attributes by a name built at run time; assign the attribute in your own code",
    "delattr": "it deletes attributes by a name built at run time",
    "vars": "it hands out an object's namespace",
    "globals": "it hands out the module's namespace",
    "locals": "it hands out a frame's namespace",
    "eval": "it runs code built at run time",
    "exec": "it runs code built at run time",
    "compile": "it builds code at run time",
    "__import__": "it imports a module by a name built at run time",
    "open": "the grader gives your code its inputs; a fix reads no files (an exercise that needs it says so)",
    "breakpoint": "it starts a debugger, which waits for input",
    "input": "it waits for input nobody gives",
    "help": "it starts an interactive help",
    "exit": "it ends the process",
    "quit": "it ends the process",
}
# Dunder attributes a submission may read: names, and the special methods a class of its own may
# define and call on its base (`super().__call__(x)`); not __setitem__, which would fill a
# module's table without the write the policy looks for.
READABLE_DUNDERS = {"__init__", "__name__", "__qualname__", "__doc__", "__call__", "__iter__", "__next__", "__len__",
                    "__getitem__", "__contains__", "__enter__", "__exit__"}
# Special methods a submission's classes may define: what a model, a container or a context manager
# needs. Not __eq__, __hash__, __str__, __repr__, __bool__ and friends: an object that defines how it
# compares or prints decides what the grader sees of it.
DEFINABLE_DUNDERS = {"__init__", "__call__", "__iter__", "__next__", "__len__", "__getitem__", "__setitem__",
                     "__contains__", "__enter__", "__exit__", "__post_init__"}
# Names a dunder Name may be (read): `if __name__ == "__main__":`, the file's own path.
READABLE_DUNDER_NAMES = {"__name__", "__file__", "__doc__"}

# How an exercise's header extends the lists: scan_allow = ["import:threading", ...].
ALLOW_FORMS = {
    "import": "a module (and its submodules) the exercise's code imports, e.g. \"import:torch._inductor.decomposition\"",
    "private": "a private name (and what is under it), e.g. \"private:torch._inductor.decomposition\"",
    "write": "a name of an imported module the code may assign or fill, e.g. \"write:torch._inductor.decomposition.decompositions\"",
    "name": "a builtin from FORBIDDEN_BUILTINS, e.g. \"name:open\"",
    "special": "a special method the code's classes may define, e.g. \"special:__repr__\"",
}

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_DUNDER_TEXT = re.compile(r"__[A-Za-z][A-Za-z0-9_]*__")
_FORMAT_FIELD_ATTRIBUTE = re.compile(r"\{[^{}]*\.\s*_[^{}]*\}|\{[^{}]*\.(%s)\b[^{}]*\}" % "|".join(sorted(INTROSPECTION_ATTRIBUTES)))


@dataclass(frozen=True)
class Finding:
    line: int
    rule: str
    message: str  # for the learner: what is not allowed, why, and what to do

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"

    @property
    def why(self) -> str:  # the name scan.py's findings used
        return self.message


class _Allowances:
    """The base lists plus an exercise's ``scan_allow`` entries."""

    def __init__(self, entries=()):
        self.modules = set(STDLIB_MODULES) | set(THIRD_PARTY_MODULES) | set(COURSE_MODULES) | {"torch"}
        self.private = dict(ALLOWED_PRIVATE)
        self.writes: set[str] = set()
        self.builtins = dict(FORBIDDEN_BUILTINS)
        self.specials = set(DEFINABLE_DUNDERS)
        self.denied = dict(DENIED)
        self.restricted = {module: set(names) for module, names in RESTRICTED.items()}
        for entry in entries:
            form, _, target = str(entry).partition(":")
            target = target.strip()
            if form == "import":
                self.modules.add(target)
                self.denied.pop(target, None)
                if target.split(".")[0] in self.restricted:
                    top, _, rest = target.partition(".")
                    self.restricted[top] |= {rest + ".*"} if rest else {"*"}
                self.private[target + ".*"] = "imported by this exercise"
            elif form == "private":
                self.private[target + ".*"] = "allowed by this exercise"
            elif form == "write":
                self.writes.add(target)
            elif form == "name":
                self.builtins.pop(target, None)
            elif form == "special":
                self.specials.add(target)

    def module_allowed(self, name: str) -> str | None:
        """None when module ``name`` may be imported, else why not."""
        why = self.denied_problem(name) or self.restricted_problem(name)
        if why:
            return why
        if any(name == m or name.startswith(m + ".") for m in self.modules if m != "torch"):
            return None
        if name.split(".")[0] == "torch" and not self.private_problem(name):
            return None
        return "no fix in this course needs it"

    def denied_problem(self, path: str) -> str | None:
        for denied, why in self.denied.items():
            if path == denied or path.startswith(denied + "."):
                return why
        return None

    def restricted_problem(self, path: str) -> str | None:
        """Why ``path`` is outside what RESTRICTED allows of its module (or reaches a module through
        another's attribute), or None."""
        parts = path.split(".")
        for depth, part in enumerate(parts[1:], start=1):
            if part in REACHABLE_MODULES_REFUSED and ".".join(parts[: depth + 1]) not in self.modules:
                return f"it reaches the module `{part}` through `{'.'.join(parts[:depth])}`, which no fix needs"
        top, _, rest = path.partition(".")
        if top not in self.restricted or not rest:
            return None
        for entry in self.restricted[top]:
            if entry == "*" or rest == entry or (entry.endswith(".*") and (rest == entry[:-2] or rest.startswith(entry[:-1]))):
                return None
            if entry.startswith(rest + "."):  # a step on the way to an allowed name (`autograder.lab`)
                return None
        if path.startswith(("os.environ.", "os.putenv", "os.unsetenv")):
            return ENVIRONMENT_WHY
        return f"of `{top}`, a fix may use only {RESTRICTED_WHY.get(top, 'what the exercise names')}"

    def private_problem(self, path: str) -> bool:
        """Whether dotted ``path`` (rooted at a module) has a private component and no entry covers
        the whole path (an exact entry names one thing; an entry ending in ".*" everything under it)."""
        parts = path.split(".")
        if not any(p.startswith("_") and not _is_dunder(p) for p in parts[1:]):
            return False
        return not any(self._covers(entry, path) for entry in self.private)

    @staticmethod
    def _covers(entry: str, path: str) -> bool:
        if entry.endswith(".*"):  # the base and the public names under it
            base = entry[:-2]
            rest = path[len(base) + 1:].split(".") if path.startswith(base + ".") else []
            return path == base or (bool(rest) and not any(p.startswith("_") and not _is_dunder(p) for p in rest))
        return path == entry

    def may_write(self, path: str) -> bool:
        parts = path.split(".")
        if len(parts) == 4 and parts[:3] == ["torch", "_dynamo", "config"] and not parts[3].startswith("_"):
            return True  # which keys may change is the grading child's to decide, against allow_config and config_may_add
        return any(path == w or path.startswith(w + ".") for w in self.writes)


def allow_problems(entries) -> list[str]:
    """Why entries of an exercise's ``scan_allow`` are malformed (empty when they are fine)."""
    problems = []
    for entry in entries:
        form, sep, target = str(entry).partition(":")
        if not sep or form not in ALLOW_FORMS or not target.strip():
            problems.append(f"scan_allow entry {entry!r}: write FORM:TARGET with FORM one of {sorted(ALLOW_FORMS)}")
        elif form == "name" and target not in FORBIDDEN_BUILTINS:
            problems.append(f"scan_allow entry {entry!r}: {target!r} is not one of the builtins the policy refuses")
        elif form == "special" and not _DUNDER_TEXT.fullmatch(target):
            problems.append(f"scan_allow entry {entry!r}: a special method looks like __name__")
    return problems


# -- the master's own GRADER blocks -----------------------------------------------------------------

_GRADER_BLOCK = re.compile(r"^# BEGIN GRADER[ \t]*\n.*?^# END GRADER[ \t]*$", re.S | re.M)
_GRADER_CACHE: dict[tuple[str, float], list[str]] = {}


def _grader_blocks(exercise) -> list[str]:
    master = getattr(exercise, "master", None)
    if master is None:
        return []
    try:
        path = Path(master)
        key = (str(path), path.stat().st_mtime)
        if key not in _GRADER_CACHE:
            _GRADER_CACHE[key] = _GRADER_BLOCK.findall(path.read_text(encoding="utf-8"))
        return _GRADER_CACHE[key]
    except (OSError, UnicodeDecodeError):
        return []


def _blank_out(source: str, block: str) -> str:
    """``source`` with each exact copy of ``block`` replaced by empty lines (line numbers kept)."""
    return source.replace(block, "\n" * block.count("\n"))


# -- the checks -------------------------------------------------------------------------------------

def coding_problem(data: bytes | str) -> str | None:
    """Why a PEP 263 coding declaration in the first two lines is refused, or None."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    for line in raw.split(b"\n")[:2]:
        match = _CODING.match(line)
        if match:
            name = match[1].decode("ascii", "replace")
            try:
                if codecs.lookup(name).name == "utf-8":
                    return None
            except LookupError:
                pass
            return (f"the file declares the encoding {name!r}; the grader reads every file as UTF-8, so Python would run "
                    "something other than what the grader read. Delete the coding line and save the file as UTF-8.")
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return None


def check(source: str, exercise=None) -> list[Finding]:
    """Findings for ``source`` (a submission's text, already known to compile), sorted by line.

    ``exercise`` (an Exercise, or None for the base lists) adds its ``scan_allow`` entries and
    the master's own GRADER blocks. ``torch._dynamo.config.KEY = value`` is left to the grading
    child, which diffs the configuration against the exercise's ``allow_config`` and
    ``config_may_add`` however the key was named."""
    allow = _Allowances(getattr(exercise, "scan_allow", ()) or ())
    findings: list[Finding] = []
    problem = coding_problem(source)
    if problem:
        findings.append(Finding(1, "coding", problem))
    for block in _grader_blocks(exercise):
        source = _blank_out(source, block)
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        findings.append(Finding(getattr(exc, "lineno", 0) or 0, "syntax",
                                f"Python cannot read the file ({type(exc).__name__}); fix it so that it compiles"))
        return findings
    _Walker(allow, exercise, findings).run(tree)
    unique = {(f.line, f.rule, f.message): f for f in findings}
    return sorted(unique.values(), key=lambda f: (f.line, f.rule))


def _is_main_guard(node) -> bool:
    test = getattr(node, "test", None)
    return (isinstance(node, ast.If) and not node.orelse and isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name) and test.left.id == "__name__" and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


class _Walker:
    def __init__(self, allow: _Allowances, exercise, findings: list[Finding]):
        self.allow, self.exercise, self.findings = allow, exercise, findings
        self.aliases: dict[str, str] = {}  # local name -> the module path it stands for
        self.bound: set[str] = set()  # names the file binds itself (a def named open is the learner's own)

    def flag(self, node, rule: str, message: str) -> None:
        self.findings.append(Finding(getattr(node, "lineno", 0) or 0, rule, message))

    # the pass over the module ---------------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        rebinds_name = any(self._binds(node, "__name__") for node in ast.walk(tree))
        skipped: set[int] = set()
        if not rebinds_name:
            for node in tree.body:
                if _is_main_guard(node):
                    skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
        nodes = [n for n in ast.walk(tree) if id(n) not in skipped]
        self._collect_aliases(nodes)
        docstrings = {id(n.value) for n in nodes if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                      and isinstance(n.value.value, str)}
        parents = {id(child): parent for parent in nodes for child in ast.iter_child_nodes(parent)}
        self.parents = parents
        for node in nodes:
            self._visit(node, docstrings)

    @staticmethod
    def _binds(node, name: str) -> bool:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return node.id == name
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return node.name == name
        if isinstance(node, ast.alias):
            return (node.asname or node.name.split(".")[0]) == name
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return name in node.names
        if isinstance(node, ast.arg):
            return node.arg == name
        if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            return node.name == name
        if isinstance(node, ast.MatchMapping):
            return node.rest == name
        return False

    def _collect_aliases(self, nodes) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        # A name assigned a module path (`cfg = torch._dynamo.config`) stands for it too; repeat
        # until nothing changes, so that chains of such names resolve.
        changed = True
        while changed:
            changed = False
            for node in nodes:
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    path = self.resolve(node.value)
                    for target in targets:
                        if path and isinstance(target, ast.Name) and target.id not in self.aliases:
                            self.aliases[target.id] = path
                            changed = True
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in self.aliases:
                self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)

    def resolve(self, node) -> str | None:
        """The module path an expression stands for (``F.relu`` -> ``torch.nn.functional.relu``), or None."""
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in self.aliases:
            return None
        base = self.aliases[head]
        return f"{base}.{rest}" if rest else base

    # each node ------------------------------------------------------------------------------------

    def _visit(self, node, docstrings) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self._import(node, alias.name)
                self._dunder_binding(node, alias.asname)
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node)
        elif isinstance(node, ast.Attribute):
            self._attribute(node)
        elif isinstance(node, ast.Name):
            self._name(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node)
        elif isinstance(node, ast.ClassDef):
            self._class(node)
        elif isinstance(node, ast.arg) and _is_dunder(node.arg):
            self.flag(node, "dunder", f"a parameter named `{node.arg}`: names of the form __x__ belong to Python; choose another name")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if _is_dunder(name):
                    self.flag(node, "dunder", f"`{type(node).__name__.lower()} {name}`: names of the form __x__ belong to Python")
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name and _is_dunder(node.name):
            self.flag(node, "dunder", f"binding `{node.name}`: names of the form __x__ belong to Python")
        elif isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.Constant) and id(node) not in docstrings:
            self._constant(node)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, (ast.Attribute, ast.Subscript)) and isinstance(getattr(part, "ctx", None), (ast.Store, ast.Del)):
                        self._module_write(part)

    def _import(self, node, name: str) -> None:
        why = self.allow.module_allowed(name)
        if why:
            self.flag(node, "import", f"`import {name}` is not allowed: {why}. A fix uses torch and the modules the "
                                      "exercise already imports; remove the import")

    def _import_from(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.flag(node, "import", "a relative import: the grader runs your file on its own; import from torch by name")
            return
        module = node.module or ""
        module_why = self.allow.module_allowed(module)
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, "import", f"`from {module} import *`: import the names you use, one by one")
                continue
            self._dunder_binding(node, alias.asname or alias.name)
            full = f"{module}.{alias.name}"
            if _is_dunder(alias.name):
                self.flag(node, "dunder", f"`from {module} import {alias.name}`: names of the form __x__ are not for a fix")
            elif self.allow.denied_problem(full) or self.allow.restricted_problem(full):
                self.flag(node, "import", f"`from {module} import {alias.name}` is not allowed: "
                                          f"{self.allow.denied_problem(full) or self.allow.restricted_problem(full)}")
            elif self.allow.module_allowed(full) is None:
                continue  # a submodule allowed by itself (`from torch._inductor import config`)
            elif module_why:
                self.flag(node, "import", f"`from {module} import {alias.name}` is not allowed: {module_why}. Remove the import")
            elif self.allow.private_problem(full):
                self.flag(node, "private", f"`from {module} import {alias.name}` uses a private name; {self._private_advice()}")

    def _dunder_binding(self, node, name: str | None) -> None:
        if name and _is_dunder(name):
            self.flag(node, "dunder", f"importing as `{name}`: names of the form __x__ belong to Python")

    @staticmethod
    def _private_advice() -> str:
        return ("a fix uses the public API, and of torch's private names only the few the lessons teach "
                "(torch._dynamo.config, torch._dynamo.graph_break, torch._dynamo.nonstrict_trace, torch._check, ...)")

    def _attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        storing = isinstance(node.ctx, (ast.Store, ast.Del))
        if _is_dunder(attr):
            if storing or attr not in READABLE_DUNDERS:
                self.flag(node, "dunder", f"`.{attr}`: attributes of the form __x__ reach Python's and the grader's internals; "
                                          "no fix needs them")
            return
        if attr in INTROSPECTION_ATTRIBUTES:
            self.flag(node, "introspection", f"`.{attr}` hands out the interpreter's frames or code; no fix needs it")
            return
        path = self.resolve(node)
        parent = self.parents.get(id(node))
        if (path is not None and isinstance(parent, ast.Attribute) and not _is_dunder(parent.attr)
                and parent.attr not in INTROSPECTION_ATTRIBUTES):
            return  # the longest chain (`torch._dynamo.config.x`) is judged as a whole
        if path is not None:
            why = self.allow.denied_problem(path) or self.allow.restricted_problem(path)
            if why:
                self.flag(node, "import", f"`{path}` is not allowed: {why}")
            elif self.allow.private_problem(path):
                self.flag(node, "private", f"`{path}` is a private name; {self._private_advice()}")
            return
        if attr.startswith("_") and not self._own_attribute(node) and not (attr in READABLE_PRIVATE_ATTRIBUTES and not storing):
            self.flag(node, "private", f"`.{attr}`: names that start with `_` are private to their library; "
                                       "use its public API (or drop the underscore from your own attribute)")

    def _literal_getattr(self, node: ast.Name) -> ast.Attribute | None:
        """``getattr(obj, "name")`` or ``getattr(obj, "name", default)`` with the name as a literal: the
        attribute ``obj.name`` it reads (a default is what ``obj.name`` cannot say); None otherwise."""
        call = self.parents.get(id(node))
        if not (isinstance(call, ast.Call) and call.func is node and not call.keywords and len(call.args) in (2, 3)
                and not any(isinstance(arg, ast.Starred) for arg in call.args)):
            return None
        name = call.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
            return None
        return ast.copy_location(ast.Attribute(value=call.args[0], attr=name.value, ctx=ast.Load()), call)

    def _own_attribute(self, node: ast.Attribute) -> bool:
        """``self._x`` (or ``cls._x``) in a method whose first parameter that name is, directly or
        from a function nested in it, with no scope on the way rebinding it: the learner's own attribute."""
        owner = node.value
        if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
            return False
        scope = self.parents.get(id(node))
        while scope is not None:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                params = [a.arg for a in scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs]
                stores = any(isinstance(n, ast.Name) and n.id == owner.id and isinstance(n.ctx, ast.Store)
                             for n in ast.walk(scope))
                if stores:
                    return False
                if owner.id in params:
                    return (not isinstance(scope, ast.Lambda) and params[0] == owner.id
                            and isinstance(self.parents.get(id(scope)), ast.ClassDef))
            scope = self.parents.get(id(scope))
        return False

    def _name(self, node: ast.Name) -> None:
        name = node.id
        if _is_dunder(name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                self.flag(node, "dunder", f"assigning `{name}`: names of the form __x__ belong to Python and the grader")
            elif name not in READABLE_DUNDER_NAMES:
                self.flag(node, "dunder", f"`{name}` reaches the interpreter's internals; no fix needs it")
            return
        if isinstance(node.ctx, ast.Load) and name in self.allow.builtins and name not in self.bound and name not in self.aliases:
            spelled = self._literal_getattr(node) if name == "getattr" else None
            if spelled is None:
                self.flag(node, "builtin", f"`{name}` is not allowed: {self.allow.builtins[name]}")
            elif self.resolve(spelled.value) is not None:  # on a module: the written-out chain is what the rules follow
                self.flag(node, "builtin", f"`getattr` on a module is not allowed: write the attribute out "
                                           f"(`{self.resolve(spelled.value)}.{spelled.attr}`), so that the rules on names can follow it")
            else:
                self._attribute(spelled)  # a name written out is judged as `obj.name` would be
        elif isinstance(node.ctx, ast.Load) and self.aliases.get(name) in self.allow.restricted and not self._names_a_part(node):
            # `f(os)`, `def f(o=os)`, `[builtins]`: the module under another name that the rules
            # on its names cannot follow (`o.system`, `b.getattr`).
            module = self.aliases[name]
            self.flag(node, "restricted", f"`{name}` used as a value: of `{module}`, a fix may use only "
                                          f"{RESTRICTED_WHY.get(module, 'what the exercise names')}, written out (`{name}.<name>`)")
        elif name == "type" and isinstance(node.ctx, ast.Load) and "type" not in self.bound:
            parent = self.parents.get(id(node))
            if not (isinstance(parent, ast.Call) and parent.func is node):  # `t = type` then t(name, bases, namespace)
                self.flag(node, "builtin", "`type` as a value: call it on an object (`type(x)`) if you need its class")

    def _names_a_part(self, node: ast.Name) -> bool:
        """Whether ``node`` is the start of an attribute chain (`os.path`) or is given a second name
        (`m = os`, which the rules then follow as the module)."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return True
        return isinstance(parent, ast.Assign) and parent.value is node and all(isinstance(t, ast.Name) for t in parent.targets)

    def _function(self, node) -> None:
        if not _is_dunder(node.name):
            return
        in_class = isinstance(self.parents.get(id(node)), ast.ClassDef)
        if not in_class:
            self.flag(node, "dunder", f"a function named `{node.name}` outside a class: names of the form __x__ "
                                      "change how Python treats the module; choose another name")
        elif node.name not in self.allow.specials:
            self.flag(node, "special", f"defining `{node.name}`: an object that decides how it compares, prints or converts "
                                       "decides what the grader sees of it; no fix needs it (allowed: "
                                       f"{', '.join(sorted(self.allow.specials))})")

    def _class(self, node: ast.ClassDef) -> None:
        if _is_dunder(node.name):
            self.flag(node, "dunder", f"a class named `{node.name}`: names of the form __x__ belong to Python")
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self.flag(node, "special", "a metaclass decides how a class behaves as a whole; no fix needs one")

    def _call(self, node: ast.Call) -> None:
        if self.resolve(node.func) in LIBRARY_REGISTRARS:
            for arg in list(node.args[:2]) + [k.value for k in node.keywords if k.arg in ("ns", "qualname", "name", "op")]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    namespace = arg.value.split("::")[0].split(".")[0]
                    if namespace in TORCH_NAMESPACES:
                        self.flag(node, "library", f"registering a kernel in torch's own namespace `{namespace}`: a fix "
                                                   "defines its own operators (a namespace such as `course::`) and leaves torch's alone")
        for keyword in node.keywords:
            if keyword.arg == "weights_only" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is True):
                self.flag(node, "builtin", "`weights_only=False`: loading a pickle runs whatever code it names; no fix needs it")
        func = node.func
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type" and "type" not in self.bound:
            func = func.func  # type(type(x))(name, bases, namespace)
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3 and "type" not in self.bound:
            self.flag(node, "builtin", "`type(name, bases, namespace)` builds a class at run time; write the class out")

    def _constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if not isinstance(value, str):
            return
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Compare) and value == "__main__":
            return
        if value.startswith(("/proc/", "/dev/mem", "/dev/kmem", "/sys/fs/cgroup")):
            self.flag(node, "path", f"the path {value[:40]!r} reaches the state of the grading's processes; no fix needs it")
        dunders = {m for m in _DUNDER_TEXT.findall(value) if m not in READABLE_DUNDERS and m != "__main__"}
        if dunders:
            self.flag(node, "dunder", f"the string {value[:40]!r} names {', '.join(sorted(dunders))}: names of the form __x__ "
                                      "are not for a fix, written out or as text")
        elif _FORMAT_FIELD_ATTRIBUTE.search(value):
            self.flag(node, "private", f"the format string {value[:40]!r} reads a private attribute; format plain values")

    def _module_write(self, target) -> None:
        owner = target.value
        path = self.resolve(owner)
        if path is None:
            return
        full = f"{path}.{target.attr}" if isinstance(target, ast.Attribute) else path
        if self.allow.may_write(full):
            return
        what = "filling" if isinstance(target, ast.Subscript) else "replacing" if isinstance(target.ctx, ast.Store) else "deleting"
        if full == "os.environ" or full.startswith("os.environ."):
            self.flag(target, "module-write", f"{what} `{full}`: {ENVIRONMENT_WHY}")
            return
        self.flag(target, "module-write", f"{what} `{full}`: a submission may not change what it imported "
                                          "(torch, the timers, other modules); change your own code instead")

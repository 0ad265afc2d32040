"""Reading what Dynamo says: a whole graph-break message, its registry id, a guard log, a recompile reason.

Lessons assert what a message *means* (the break's id in Dynamo's graph-break registry, the kind of
guard that failed), never its wording. The wording is read here, in one place, and the drift alarms
(``drift.py``) check that this reading still works on the installed torch.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
from dataclasses import dataclass, field

import torch
import torch._dynamo
import torch._dynamo.exc
from .state import clean_state
from .tally import GraphTally, _is_user_file

# -- the graph-break registry ---------------------------------------------------------------------
#
# Every graph break Dynamo can report has an entry in torch/_dynamo/graph_break_registry.json: an id
# (GB0059) that stays when the wording of its type, explanation or hints changes, and a page on the
# graph-break site that the message links to.

_LINK = re.compile(r"/gb/(gb\d+)\.html", re.I)


@functools.lru_cache(maxsize=1)
def _registry() -> dict:
    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


@functools.lru_cache(maxsize=1)
def _ids_by_type() -> dict[str, str]:
    found: dict[str, str] = {}
    for gb_id, versions in sorted(_registry().items()):
        for version in versions:
            found.setdefault(version.get("Gb_type", ""), gb_id)
    return found


def gb_id(text) -> str | None:
    """The registry id ("GB0059") of a graph break, from its message (the link it carries) or its
    type (the message's first line, ``gb_type``); None when the registry does not know it."""
    text = str(text or "")
    link = _LINK.search(text)
    if link:
        return link[1].upper()
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    return _ids_by_type().get(first) or _ids_by_type().get(first.rstrip("."))


def gb_type_of(identifier: str) -> str | None:
    """The break type the installed registry gives an id (its latest wording), for printing."""
    versions = _registry().get(identifier.upper()) or []
    return versions[-1].get("Gb_type") if versions else None


# -- a whole graph-break message ------------------------------------------------------------------

@dataclass
class Frame:
    file: str
    line: int
    function: str
    code: str

    def __str__(self) -> str:
        return f"{os.path.basename(self.file)}:{self.line} in {self.function}: {self.code}"


@dataclass
class GraphBreak:
    """The parts of the error ``fullgraph=True`` raises at a graph break (see ``graph_break``)."""
    gb_type: str  # the first line: what kind of break (Dynamo's registry type)
    gb_id: str | None  # its registry id, e.g. "GB0059": stable across rewordings
    explanation: str  # "Explanation:": what Dynamo could not do
    hints: list  # each "Hint:" line: what you might do (some are generic advice)
    context: str  # "Developer debug context:": for Dynamo's developers
    link: str  # the page of this break on the graph-break site
    user_stack: list = field(default_factory=list)  # Frames, outermost first: the innermost is the culprit
    text: str = ""  # the whole message
    exception: str = ""  # the exception's type

    def __str__(self) -> str:
        return self.gb_type

    @property
    def culprit(self) -> Frame | None:
        """The innermost frame of user code: the line that broke the graph."""
        return self.user_stack[-1] if self.user_stack else None


_PART = re.compile(r"^\s+(Explanation|Hint|Developer debug context):\s?(.*)$")
_URL = re.compile(r"https?://\S+")


def parse_break(exc: BaseException) -> GraphBreak:
    """Split a graph-break exception into its parts."""
    text = str(exc)
    head = text.split("\nfrom user code:")[0]
    parts: dict[str, list] = {"Explanation": [], "Hint": [], "Developer debug context": []}
    for line in head.splitlines()[1:]:
        match = _PART.match(line)
        if match:
            parts[match[1]].append(match[2].strip())
    url = _URL.search(head)
    frames = []
    for summary in list(getattr(exc, "real_stack", None) or []):
        frames.append(Frame(summary.filename, summary.lineno or 0, summary.name, (summary.line or "").strip()))
    gb_type = getattr(exc, "gb_type", None) or (text.strip().splitlines()[0] if text.strip() else "")
    return GraphBreak(gb_type=gb_type, gb_id=gb_id(text) or gb_id(gb_type), explanation=" ".join(parts["Explanation"]),
                      hints=parts["Hint"], context=" ".join(parts["Developer debug context"]),
                      link=url[0].rstrip(".") if url else "", user_stack=[f for f in frames if _is_user_file(f.file)] or frames,
                      text=text, exception=type(exc).__name__)


def graph_break(fn, *args, **compile_options) -> GraphBreak | None:
    """Compile ``fn`` with fullgraph=True and call it once: the first graph break, whole, or None."""
    clean_state()
    try:
        torch.compile(fn, backend=GraphTally(), fullgraph=True, **compile_options)(*args)
    except torch._dynamo.exc.Unsupported as exc:
        return parse_break(exc)
    finally:
        clean_state()
    return None


# -- a guard log (TORCH_LOGS=guards) -------------------------------------------------------------

_GUARD_LOGGER = "torch._dynamo.guards.__guards"
_TREE_LINE = re.compile(r"^(?P<indent>[| ]*)\+- (?P<kind>[A-Za-z_]+): ?(?P<rest>.*)$")
_WHERE = re.compile(r"\s+#\s+(?P<where>\S+:\d+ in \S+)\s*$")


@dataclass
class GuardLine:
    depth: int  # nesting in the tree: 0 for the root's children
    kind: str  # TENSOR_MATCH, EQUALS_MATCH, ..., or GuardManager (a node that reaches a value)
    text: str  # the check itself
    user_code: str  # the line of your code that made Dynamo install it ("" for ambient guards)
    where: str  # file:line in function, of that line (or of torch's code for ambient guards)


@dataclass
class GuardLog:
    text: str
    lines: list

    def kinds(self) -> list[str]:
        return [line.kind for line in self.lines if line.kind != "GuardManager"]

    def of(self, kind: str) -> list[GuardLine]:
        return [line for line in self.lines if line.kind == kind]


def parse_guard_tree(text: str) -> list[GuardLine]:
    lines = []
    for raw in text.splitlines():
        match = _TREE_LINE.match(raw)
        if not match or match["kind"] == "RootGuardManager":
            continue
        rest, user_code, where = match["rest"], "", ""
        located = _WHERE.search(rest)
        if located:
            where = located["where"]
            rest = rest[: located.start()]
            # The check and the user's source line are separated by "  # " as well.
            check, sep, code = rest.rpartition("  # ")
            if sep and check.strip():
                rest, user_code = check, code.strip()
        depth = max(0, match["indent"].count("|") - 1)
        lines.append(GuardLine(depth, match["kind"], rest.strip(), user_code, where))
    return lines


@contextlib.contextmanager
def _artifact(name: str, logger_name: str):
    """Collect the messages of one TORCH_LOGS artifact while the block runs, without printing them."""
    logger = logging.getLogger(logger_name)
    messages: list[str] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = lambda record: messages.append(record.getMessage())
    state = torch._logging._internal.log_state
    was_enabled = state.is_artifact_enabled(name)
    old_level, old_propagate = logger.level, logger.propagate
    state.enable_artifact(name)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(handler)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        if not was_enabled:
            state.artifact_names.discard(name)


def guard_log(fn, *args, backend=None, **compile_options) -> GuardLog:
    """Compile ``fn``, call it once, and return the guard tree Dynamo logs (``TORCH_LOGS=guards``)."""
    clean_state()
    with _artifact("guards", _GUARD_LOGGER) as messages:
        torch.compile(fn, backend=backend or GraphTally(), **compile_options)(*args)
    clean_state()
    tree = next((m for m in messages if "+- " in m), "")
    return GuardLog(text=tree.strip("\n"), lines=parse_guard_tree(tree))


# -- a recompile reason ------------------------------------------------------------------------

# What each failing-guard line of a recompile message is about. Tensor guards name the mismatch;
# value guards are Python comparisons that the traced value no longer satisfies.
_TENSOR_MISMATCH = re.compile(r"tensor '(?P<subject>[^']+)' (?P<kind>[a-z_ ]+?) mismatch")
_GLOBAL_STATE = re.compile(r"GLOBAL_STATE changed: (?P<kind>[a-z_ ]+)")
_COMPARISON = re.compile(r"^(?:not\s+)?(?:len\()?(?P<subject>[^=<>!]+?)\)?\s*(?:==|!=|<=|>=|<|>|is)\s*(?P<value>.+)$")


@dataclass
class FailedGuard:
    compile_id: str  # the cached entry whose guard failed, "frame/compile"
    kind: str  # "size", "stride", "dtype", "requires_grad", "device", "value", "global state: grad_mode", ...
    subject: str  # what it guards: "x", "alpha", "G['seen']", "self.calls"
    text: str


def failed_guard(reason: str) -> FailedGuard:
    """Read one failing-guard line of a recompile message ("0/0: alpha == 0.25")."""
    compile_id, _, text = reason.partition(": ")
    if not _:
        compile_id, text = "", reason
    tensor = _TENSOR_MISMATCH.search(text)
    if tensor:
        return FailedGuard(compile_id, tensor["kind"].strip().replace(" ", "_"), tensor["subject"], text)
    state = _GLOBAL_STATE.search(text)
    if state:
        return FailedGuard(compile_id, "global state: " + state["kind"].strip(), "", text)
    bare = text.strip()
    if bare.startswith("not ") and not _COMPARISON.match(bare):  # "not G['seen']": an empty container
        return FailedGuard(compile_id, "value", bare[4:].strip(), text)
    comparison = _COMPARISON.match(bare)
    if comparison:
        subject = comparison["subject"].strip()
        kind = "length" if bare.startswith("len(") else "value"
        return FailedGuard(compile_id, kind, subject, text)
    return FailedGuard(compile_id, "other", "", text)


# -- warnings Dynamo logs --------------------------------------------------------------------------

@contextlib.contextmanager
def captured_log(logger_name: str = "torch._dynamo", level: int = logging.DEBUG):
    """Collect what a torch logger (and the loggers below it) emits while the block runs, as a list of
    messages, instead of printing it. A lesson turns a log on with ``torch._logging.set_logs`` as a
    learner would, and shows the lines it is about on stdout; the rest stays off the screen."""
    logger = logging.getLogger(logger_name)
    messages: list[str] = []
    handler = logging.Handler(level)
    handler.emit = lambda record: messages.append(record.getMessage())
    saved, old_level, old_propagate = logger.handlers[:], logger.level, logger.propagate
    for existing in saved:
        logger.removeHandler(existing)
    logger.addHandler(handler)
    logger.propagate = False
    # A lesson may have raised the level to keep warnings quiet elsewhere: let them through here.
    # (Never lower it below WARNING: records of artifact loggers such as recompiles are made at their
    # own level and reach this handler anyway; lowering it would make every debug record.)
    if old_level != logging.NOTSET and old_level > max(level, logging.WARNING):
        logger.setLevel(max(level, logging.WARNING))
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        for existing in saved:
            logger.addHandler(existing)


@contextlib.contextmanager
def logged_warnings(logger_name: str = "torch._dynamo"):
    """The warnings a torch logger emits while the block runs, collected instead of printed: a lesson
    shows the ones it is about, and its output stays free of the rest. (Dynamo's notices, such as the
    recompile-limit one, are logging records, not Python warnings.)"""
    with captured_log(logger_name, logging.WARNING) as messages:
        yield messages


# -- TORCH_LOGS output read back ------------------------------------------------------------------

# Each line torch logs to stderr starts with a glog-style header, then the compile id and, for an
# artifact, its name: "V1201 10:05:46.507000 18187 .../guards.py:5396] [0/1] [__recompiles] text".
# A record of several lines repeats the header on each.
_LOG_LINE = re.compile(r"^(?P<stamp>[A-Z]\d{4} [\d:.]+ \d+) \S+\] \[(?P<compile_id>[^\]]+)\](?: \[__(?P<artifact>\w+)\])? ?(?P<text>.*)$")


@dataclass
class LogRecord:
    compile_id: str  # "0/1": frame 0, its second compile
    artifact: str  # "recompiles", "graph_breaks", ... ("" for a component's own log)
    text: str  # the record, its lines joined

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0] if self.text else ""

    @property
    def failed_guards(self) -> list:
        """For a recompiles record: the failing guard of each cached entry (see ``failed_guard``)."""
        from .events import _GUARD_LINE

        return [failed_guard(m[1].strip()) for m in map(_GUARD_LINE.match, self.text.splitlines()) if m]


def read_torch_logs(stderr: str) -> list[LogRecord]:
    """The records of a program's ``TORCH_LOGS`` output, in order (other lines are skipped)."""
    records: list[LogRecord] = []
    key = None
    for line in stderr.splitlines():
        match = _LOG_LINE.match(line)
        if not match:
            key = None
            continue
        this = (match["stamp"], match["compile_id"], match["artifact"] or "")
        if this == key and records:
            records[-1].text += "\n" + match["text"]
        else:
            records.append(LogRecord(match["compile_id"], match["artifact"] or "", match["text"]))
            key = this
    return records

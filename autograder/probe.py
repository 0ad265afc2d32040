"""The one module that touches ``torch._dynamo``: count graphs, breaks, recompiles and compiled calls.

The grader compiles the learner's callable with its own counting backend (``GraphTally``) and
replays a schedule of calls. Lessons use ``tally_calls`` to compute every number they state.

Which counter means what on torch 2.13 (see the course's facts sheet):
- graphs: GraphModules handed to the backend (a graph with no ops is never handed over);
- graph breaks: graphs whose ``compile_subgraph_reason`` says the graph ended at a break; this
  also sees data-dependent branching, which ``counters["graph_break"]`` does not;
- recompiles: compiles whose compile id ``F/C`` has ``C > 0``;
- compiled calls: calls during which at least one compiled graph ran, which exposes stances and
  recompile-limit fallbacks that run eagerly without any error.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import re
import sys
import sysconfig
from dataclasses import dataclass, field

import torch
import torch._dynamo
import torch._dynamo.exc
from torch._dynamo.utils import counters

_TORCH_DIR = os.path.dirname(torch.__file__)
_STDLIB_DIR = sysconfig.get_paths()["stdlib"]
_RECOMPILE_LOGGER = "torch._dynamo.guards.__recompiles"
_TORCH_NAMESPACES = {"aten", "prims", "prim", "_c10d_functional", "c10d_functional", "higher_order", "quantized", "profiler",
                     "inductor", "debugprims", "rngprims", "fsdp", "_quantized", "_c10d_functional_autograd", "mkldnn", "onednn"}


def _is_user_file(filename: str) -> bool:
    return not (filename.startswith(_TORCH_DIR) or filename.startswith(_STDLIB_DIR) or filename.startswith("<"))


def _site(frames, prefer: str | None = None) -> dict:
    """The innermost frame of user code (of ``prefer`` when given) as {file, line, function, code}."""
    frames = list(frames or [])
    user = [f for f in frames if _is_user_file(f.filename)]
    preferred = [f for f in user if prefer and os.path.samefile(f.filename, prefer)] if prefer else []
    chosen = (preferred or user or frames or [None])[-1]
    if chosen is None:
        return {}
    return {"file": chosen.filename, "line": chosen.lineno, "function": chosen.name, "code": (chosen.line or "").strip()}


def _first_paragraphs(text: str) -> str:
    """Dynamo's message without the user stack and the developer-facing tail."""
    text = text.split("\nfrom user code:")[0]
    kept = [line for line in text.splitlines() if not line.strip().startswith("Developer debug context")]
    return "\n".join(kept).strip()


class GraphTally:
    """A backend that records each graph it is given and counts how often compiled code runs.

    ``inner`` optionally names a real backend ("aot_eager", "inductor") that compiles the graph;
    by default the graph runs as captured, which keeps structure checks fast.
    """

    def __init__(self, inner: str | None = None, prefer_file: str | None = None, capture_aot: bool = False):
        self.inner = inner
        self.prefer_file = prefer_file
        # capture_aot: run the graphs through aot_eager and keep the op names of each AOT forward
        # graph, which shows what an escape hatch (nonstrict_trace, a custom op) really traced.
        self.capture_aot = capture_aot
        self.aot_targets: list[str] = []
        self.graphs: list[torch.fx.GraphModule] = []
        self.compile_ids: list[str] = []
        self.breaks: list[dict] = []
        self.runs = 0

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        self.compile_ids.append(str(torch._guards.CompileContext.current_compile_id()))
        reason = getattr(gm, "compile_subgraph_reason", None)
        if reason is not None and reason.graph_break:
            self.breaks.append({"reason": _first_paragraphs(reason.reason), "type": _break_type(reason.reason),
                                **_site(reason.user_stack, self.prefer_file)})
        if self.capture_aot and self.inner in (None, "aot_eager"):
            compiled = torch._dynamo.lookup_backend("aot_eager")(gm, example_inputs, fw_compiler=self._record_aot)
        else:
            compiled = gm.forward if self.inner is None else torch._dynamo.lookup_backend(self.inner)(gm, example_inputs)

        def run_compiled(*args):
            self.runs += 1
            return compiled(*args)

        return run_compiled

    @property
    def recompiles(self) -> int:
        return sum(1 for cid in set(self.compile_ids) if _recompile_index(cid) > 0)

    def op_counts(self) -> list[int]:
        return [sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")) for gm in self.graphs]

    def targets(self) -> list[str]:
        """Every op the graphs call, by name, for checks that look inside the graphs."""
        return [str(n.target) for gm in self.graphs for n in gm.graph.nodes if n.op.startswith("call_")]

    def _record_aot(self, gm, example_inputs):
        from torch._dynamo.backends.debugging import boxed_nop

        self.aot_targets += [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
        return boxed_nop(gm, example_inputs)

    def user_calls(self) -> list[str]:
        """Python functions from outside torch that a graph calls as one opaque node (allow_in_graph)."""
        found = []
        for gm in self.graphs:
            for n in gm.graph.nodes:
                code = getattr(n.target, "__code__", None) if n.op == "call_function" else None
                if code is not None and _is_user_file(code.co_filename):
                    found.append(getattr(n.target, "__qualname__", getattr(n.target, "__name__", str(n.target))))
        return found

    def custom_ops(self) -> list[str]:
        """Operators from a library namespace outside torch's own that the graphs call, e.g. "course::interp"."""
        found = []
        for gm in self.graphs:
            for n in gm.graph.nodes:
                if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload):
                    namespace = n.target.namespace
                    if namespace not in _TORCH_NAMESPACES:
                        found.append(f"{namespace}::{n.target._opname}")
        return found


def _break_type(reason: str) -> str:
    """Dynamo's break type (``gb_type``): the first line of a break reason, without a trailing period."""
    text = (reason or "").strip()
    return text.splitlines()[0].rstrip(".").strip() if text else ""


# -- every break and every skipped frame (chapter 2, part 2) -----------------------------------
#
# A graph has a ``compile_subgraph_reason`` only when ops come before the break, and a frame that
# Dynamo gives up on raises nothing under fullgraph=False. Two records see everything:
# - Dynamo reports each break it handles through ``InstructionTranslatorBase.log_graph_break``,
#   with the exception (its ``gb_type``) and the user stack; ``break_log`` listens there;
# - each frame Dynamo tried is a compilation-metrics record; ``fail_type`` set means the frame
#   was skipped (run eagerly), with ``fail_reason`` saying why (its first line is the break type).

_SKIP_PREFIXES = ("Failed to handle graph break gracefully", "Encountered graph break that we cannot resume from")


@contextlib.contextmanager
def break_log(prefer_file: str | None = None):
    """Record every graph break Dynamo handles while the block runs, as a list of dicts:
    type (gb_type), reason, skips_frame (Dynamo gave up on the whole frame), frame (the code being
    traced), functions (the user stack, outermost first) and the site (file, line, function, code)."""
    events: list[dict] = []
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
        original = InstructionTranslatorBase.log_graph_break
    except (ImportError, AttributeError):  # another torch: no events, the checks fall back to break_sites
        yield events
        return

    def recording(self, code_options, reason, exc):
        try:
            if not getattr(exc, "logged", False):
                stack = list(getattr(exc, "real_stack", None) or torch._guards.TracingContext.extract_stack() or [])
                events.append({
                    "type": getattr(exc, "gb_type", "") or _break_type(str(exc)) or type(exc).__name__,
                    "cause": _break_type(str(exc)),  # the break that started it (differs for "graph break in loop")
                    "reason": _first_paragraphs(str(exc)),
                    "skips_frame": str(reason).startswith(_SKIP_PREFIXES),
                    "frame": getattr(getattr(self, "f_code", None), "co_name", ""),
                    # False for frames of torch or the standard library that Dynamo tried on its own
                    # (say, logging's internals, run eagerly at a break in user code).
                    "user": _is_user_file(getattr(getattr(self, "f_code", None), "co_filename", "") or ""),
                    "functions": [f.name for f in stack],
                    **_site(stack, prefer_file),
                })
        except Exception:  # noqa: BLE001 - recording must never change what Dynamo does
            pass
        return original(self, code_options, reason, exc)

    InstructionTranslatorBase.log_graph_break = recording
    try:
        yield events
    finally:
        InstructionTranslatorBase.log_graph_break = original


@contextlib.contextmanager
def skipped_log():
    """Record the frames Dynamo tried and gave up on (ran eagerly) while the block runs, as a list of
    dicts: function, file, line, type (the break type that made Dynamo give up), reason, user."""
    from torch._dynamo import utils as dynamo_utils

    found: list[dict] = []
    limit = getattr(dynamo_utils._compilation_metrics, "maxlen", None) or dynamo_utils.DEFAULT_COMPILATION_METRICS_LIMIT
    dynamo_utils.clear_compilation_metrics()
    dynamo_utils.set_compilation_metrics_limit(100_000)
    try:
        yield found
    finally:
        for record in dynamo_utils.get_compilation_metrics():
            if not record.fail_type:
                continue
            file = record.co_filename or ""
            found.append({"function": record.co_name or "?", "file": file, "line": record.co_firstlineno or 0,
                          "type": _break_type(record.fail_reason or record.fail_type), "reason": _first_paragraphs(record.fail_reason or ""),
                          "user": not file or _is_user_file(file)})
        dynamo_utils.set_compilation_metrics_limit(limit)


def _recompile_index(compile_id: str) -> int:
    try:
        return int(compile_id.split("/")[1].split("_")[0])
    except (IndexError, ValueError):
        return 0


class _ListHandler(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def recompile_reasons():
    """Collect Dynamo's recompile messages (the failing guard of each recompile) as a list."""
    logger = logging.getLogger(_RECOMPILE_LOGGER)
    handler = _ListHandler()
    old_level, old_propagate = logger.level, logger.propagate
    # Dynamo only formats the message when the "recompiles" artifact is on; turn it on without
    # the stderr handler that set_logs would add, and send the records to our list alone.
    state = torch._logging._internal.log_state
    was_enabled = state.is_artifact_enabled("recompiles")
    state.enable_artifact("recompiles")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        if not was_enabled:
            state.artifact_names.discard("recompiles")


_GUARD_LINE = re.compile(r"^\s*- (\d+/\d+: .*?)\s*(?:#.*)?$")


def _guard_lines(message: str) -> list[str]:
    """The failing guards of one recompile message, e.g. "0/0: tensor 'x' size mismatch ..."."""
    lines = [m[1].strip() for m in map(_GUARD_LINE.match, message.splitlines()) if m]
    return lines or [message.splitlines()[0]]


def compiler_entry_points() -> list[tuple]:
    """(label, owner, attribute) of what compiling relies on, for the integrity watch."""
    return [
        ("torch.compile", torch, "compile"),
        ("torch._dynamo.optimize", torch._dynamo, "optimize"),
        ("torch._dynamo.reset", torch._dynamo, "reset"),
        ("torch._dynamo.lookup_backend", torch._dynamo, "lookup_backend"),
        ("torch.compiler.set_stance", torch.compiler, "set_stance"),
        ("torch.compiler.reset", torch.compiler, "reset"),
    ]


# -- clean state ------------------------------------------------------------------------------

def clean_state() -> None:
    """Forget every compiled frame and counter, and return to the default stance."""
    torch._dynamo.reset()
    counters.clear()
    torch.compiler.set_stance("default")


def warm_up_compiler() -> None:
    """Compile a small program of the grader's own the ways gradings do (graph breaks, a recompile
    with dynamic sizes, a backward through AOT autograd, the grader's tally), so that torch imports
    what it imports lazily on its first compile. The warm worker runs this in a throwaway child and
    then imports the same modules itself (zygote.py); it never runs in a process that grades."""

    def step(x, scale):
        y = torch.relu(x) * scale
        if y.sum() > 0:  # data-dependent branch: a graph break
            y = y + 1
        print(end="")  # a graph break on a builtin
        return y.cos().sum()

    for backend in ("eager", "aot_eager"):
        calls = [(torch.randn(size, requires_grad=True), 2.0) for size in (4, 5, 6)]
        measure(step, calls, {"backend": backend})
        compiled = torch.compile(step, backend=backend)
        compiled(*calls[0]).backward()
    clean_state()


def stance() -> str:
    current = torch._dynamo.eval_frame._stance
    return f"{current.stance}" + (", skip_guard_eval_unsafe" if current.skip_guard_eval_unsafe else "")


def config_snapshot() -> dict:
    return {k: copy.copy(v) for k, v in torch._dynamo.config.get_config_copy().items()}


def config_changes(before: dict) -> dict:
    """Keys of ``torch._dynamo.config`` whose value differs from ``before``."""
    now = torch._dynamo.config.get_config_copy()
    changed = {}
    for key, value in now.items():
        try:
            same = before.get(key) == value
        except Exception:  # values that cannot be compared count as changed
            same = False
        if not same:
            changed[key] = (before.get(key), value)
    return changed


def config_restore(before: dict, keep: set[str]) -> None:
    """Put back every changed key of ``torch._dynamo.config`` except those in ``keep``."""
    for key in config_changes(before):
        if key not in keep:
            with contextlib.suppress(Exception):
                setattr(torch._dynamo.config, key, copy.copy(before[key]))


def config_set_changes(before: dict, key: str) -> tuple[list, list]:
    """(added, removed) members of a set-valued ``torch._dynamo.config`` key since ``before``."""
    old, now = set(before.get(key) or ()), set(getattr(torch._dynamo.config, key) or ())
    return [v for v in now if v not in old], [v for v in old if v not in now]


def is_logging_callable(obj) -> bool:
    """A function or method of the standard ``logging`` module (``logger.debug``, ``logging.info``, ...)."""
    function = getattr(obj, "__func__", obj)
    return callable(obj) and getattr(function, "__module__", None) == "logging"


def describe_callable(obj) -> str:
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if owner is not None and not isinstance(owner, type(sys)) and hasattr(owner, "name"):
        return f"{name} of logger {owner.name!r}"
    return f"{getattr(obj, '__module__', '') or ''}.{name}".lstrip(".")


# -- captured output and custom operators (chapter 2) -----------------------------------------

class _Tee:
    """A stdout stand-in that keeps a copy of what is written and still passes it on."""

    def __init__(self, original):
        self.original, self.parts = original, []

    def write(self, text):
        self.parts.append(text)
        return self.original.write(text)

    def __getattr__(self, name):
        return getattr(self.original, name)


class _RecordHandler(logging.Handler):
    def __init__(self):
        super().__init__(logging.NOTSET)
        self.lines: list[str] = []

    def emit(self, record):
        if not record.name.startswith("torch"):
            self.lines.append(f"{record.levelname}:{record.name}:{record.getMessage()}")


@contextlib.contextmanager
def captured_output():
    """Record what runs inside prints to stdout and logs (non-torch loggers) as {"stdout", "logs"}."""
    seen = {"stdout": "", "logs": []}
    tee, handler, root = _Tee(sys.stdout), _RecordHandler(), logging.getLogger()
    root.addHandler(handler)
    sys.stdout = tee
    try:
        yield seen
    finally:
        if sys.stdout is tee:
            sys.stdout = tee.original
        root.removeHandler(handler)
        seen["stdout"] = "".join(tee.parts)
        seen["logs"] = handler.lines


def forget_custom_ops(module) -> list[str]:
    """Unregister the ``torch.library.custom_op``s that ``module`` defined, so that the submission can
    define the same names; returns them. Used on the grader's own copy once its reference ran."""
    from torch._library.custom_ops import CustomOpDef

    forgotten = []
    for value in list(vars(module).values()):
        if isinstance(value, CustomOpDef):
            forgotten.append(value._qualname)
            value._lib._destroy()
    return forgotten


# -- measuring --------------------------------------------------------------------------------

@dataclass
class Measurement:
    calls: int = 0
    graphs: int = 0
    ops_per_graph: list = field(default_factory=list)
    graph_breaks: int = 0
    break_sites: list = field(default_factory=list)
    recompiles: int = 0
    recompile_reasons: list = field(default_factory=list)
    compiled_calls: int = 0
    skipped_frames: int = 0
    error: dict | None = None  # the first exception a call raised, described for the learner
    outputs: list = field(default_factory=list, repr=False)
    graph_targets: list = field(default_factory=list, repr=False)
    # Filled only when measure() is asked for them (chapter 2's checks):
    call_output: list = field(default_factory=list, repr=False)  # per call: {"stdout": str, "logs": [str]}
    aot_targets: list = field(default_factory=list, repr=False)  # ops of the AOT forward graphs (capture_aot)
    user_calls: list = field(default_factory=list, repr=False)  # learner functions called as one graph node
    custom_ops: list = field(default_factory=list, repr=False)  # "ns::op" of non-torch operators in the graphs
    # Chapter 2, part 2 (fullgraph=False): every break Dynamo handled, with its type and user stack
    # (break_log), and every frame it gave up on and ran eagerly (skipped_log).
    break_events: list = field(default_factory=list, repr=False)
    skipped_sites: list = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        return {
            "calls": self.calls,
            "graphs": self.graphs,
            "ops_per_graph": self.ops_per_graph,
            "graph_breaks": self.graph_breaks,
            "break_sites": self.break_sites,
            "recompiles": self.recompiles,
            "recompile_reasons": self.recompile_reasons,
            "compiled_calls": self.compiled_calls,
            "skipped_frames": self.skipped_frames,
            "error": self.error,
            "break_types": sorted({event["type"] for event in self.break_events if event.get("user", True)}),
            "skipped_sites": [site for site in self.skipped_sites if site.get("user")],
        }


def describe_error(exc: BaseException, prefer_file: str | None = None) -> dict:
    """What a call raised, reduced to what a learner needs: kind, reason, where."""
    if isinstance(exc, torch._dynamo.exc.Unsupported):
        site = _site(getattr(exc, "real_stack", None), prefer_file)
        return {"kind": "graph_break", "type": type(exc).__name__, "gb_type": getattr(exc, "gb_type", ""),
                "message": _first_paragraphs(str(exc)), **site}
    if type(exc).__name__ in ("FailOnRecompileLimitHit", "RecompileLimitExceeded"):
        return {"kind": "recompile_limit", "type": type(exc).__name__, "message": str(exc).splitlines()[0]}
    if isinstance(exc, torch._dynamo.exc.TorchDynamoException):
        return {"kind": "compiler_error", "type": type(exc).__name__, "message": _first_paragraphs(str(exc))[:2000]}
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(_Frame(code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return {"kind": "exception", "type": type(exc).__name__, "message": f"{type(exc).__name__}: {exc}"[:2000],
            **_site(frames, prefer_file)}


@dataclass
class _Frame:
    filename: str
    lineno: int
    name: str

    @property
    def line(self) -> str:
        import linecache
        return linecache.getline(self.filename, self.lineno)


def compile_for_grading(fn, tally: GraphTally, options: dict):
    """``torch.compile`` with the grader's backend; ``options`` holds fullgraph/dynamic/recompile_limit only."""
    kwargs = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic", "recompile_limit")}
    if options.get("guard_filter_fn") is not None:  # chapter 6: the learner's guard filter
        kwargs["options"] = {"guard_filter_fn": options["guard_filter_fn"]}
    return torch.compile(fn, backend=tally, **kwargs)


def measure(fn, calls: list, options: dict, prefer_file: str | None = None, stop_on_error: bool = True, *,
            driver=None, capture_output: bool = False, capture_aot: bool = False) -> Measurement:
    """Compile ``fn`` with a fresh GraphTally and call it once per argument tuple in ``calls``.

    With ``driver``, each call is ``driver(compiled, *args)`` instead: the learner's own eager code
    (a loop, a caller) that receives the grader's compiled function. ``capture_output`` records what
    each call prints and logs; ``capture_aot`` keeps the ops of the AOT graphs (see GraphTally).
    """
    clean_state()
    tally = GraphTally(inner=options.get("backend"), prefer_file=prefer_file, capture_aot=capture_aot)
    compiled = compile_for_grading(fn, tally, options)
    result = Measurement()
    with recompile_reasons() as reasons, break_log(prefer_file) as events, skipped_log() as skipped:
        for args in calls:
            before = tally.runs
            result.calls += 1
            seen = {"stdout": "", "logs": []}
            try:
                with (captured_output() if capture_output else contextlib.nullcontext(seen)) as seen:
                    args = copy.deepcopy(args)
                    output = driver(compiled, *args) if driver is not None else compiled(*args)
            except Exception as exc:  # the learner's code, or Dynamo refusing it
                result.error = describe_error(exc, prefer_file)
                result.outputs.append(exc)
                if capture_output:
                    result.call_output.append(seen)
                if stop_on_error:
                    break
                continue
            if capture_output:
                result.call_output.append(seen)
            if tally.runs > before:
                result.compiled_calls += 1
            result.outputs.append(_detach(output))
    result.graphs = len(tally.graphs)
    result.ops_per_graph = tally.op_counts()
    if result.error and result.error["kind"] == "graph_break":  # fullgraph=True raised at the break
        tally.breaks.append({"reason": result.error["message"], "type": result.error.get("gb_type") or _break_type(result.error["message"]),
                             **{k: result.error[k] for k in ("file", "line", "function", "code") if k in result.error}})
    result.graph_breaks = max(len(tally.breaks), _break_counter())
    result.break_sites = tally.breaks
    result.break_events = list(events)
    if result.error and result.error["kind"] == "graph_break" and result.error.get("gb_type"):  # raised, not handled
        result.break_events.append({"type": result.error["gb_type"], "cause": _break_type(result.error["message"]),
                                    "reason": result.error["message"], "skips_frame": False,
                                    "raised": True, "frame": result.error.get("function", ""), "functions": [], "user": True,
                                    **{k: result.error[k] for k in ("file", "line", "function", "code") if k in result.error}})
    result.skipped_sites = list(skipped)
    result.recompiles = tally.recompiles
    result.recompile_reasons = [line for message in reasons for line in _guard_lines(message)]
    result.skipped_frames = max(0, counters["frames"]["total"] - counters["frames"]["ok"])
    result.graph_targets = tally.targets()
    result.aot_targets = list(tally.aot_targets)
    result.user_calls = tally.user_calls()
    result.custom_ops = tally.custom_ops()
    return result


def _break_counter() -> int:
    """Dynamo's own count of breaks; it also sees breaks whose graph before them had no ops."""
    return sum(counters["graph_break"].values())


def _detach(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_detach(v) for v in value) if not hasattr(value, "_fields") else type(value)(*(_detach(v) for v in value))
    if isinstance(value, dict):
        return {k: _detach(v) for k, v in value.items()}
    return value


# -- for lessons and for masters that compute the truth live ---------------------------------

@dataclass
class Tally:
    graphs: int
    graph_breaks: int
    recompiles: int
    compiled_calls: int
    calls: int
    break_reasons: list
    recompile_reasons: list
    ops_per_graph: list
    # Chapter 2, part 2: the type of every break Dynamo handled (in order, repeats kept: a nested break
    # is reported once per level), and the user functions whose frames Dynamo skipped (ran eagerly).
    break_types: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    # The ops of each graph, by name, in compile order (for pictures: autograder.pictures.graph_diagram).
    graph_ops: list = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.graphs} graph(s), {self.graph_breaks} graph break(s), {self.recompiles} recompile(s), "
                f"{self.compiled_calls}/{self.calls} calls ran compiled code")


def tally_run(fn, driver, **compile_options) -> Tally:
    """Compile ``fn`` and hand the compiled callable to ``driver``, which calls it as it likes.

    ``compile_options`` are ``fullgraph``/``dynamic``/``backend`` as for torch.compile. Starts from a
    clean Dynamo state; exceptions propagate, so a lesson can show the real error.
    """
    clean_state()
    tally = GraphTally(inner=compile_options.pop("backend", None))
    compiled = compile_for_grading(fn, tally, compile_options)
    seen = {"calls": 0, "compiled": 0}

    def counted(*args, **kwargs):
        before = tally.runs
        seen["calls"] += 1
        try:
            return compiled(*args, **kwargs)
        finally:
            seen["compiled"] += tally.runs > before

    with recompile_reasons() as reasons, break_log() as events, skipped_log() as skipped:
        driver(counted)
    return Tally(
        graphs=len(tally.graphs),
        graph_breaks=max(len(tally.breaks), _break_counter()),
        recompiles=tally.recompiles,
        compiled_calls=seen["compiled"],
        calls=seen["calls"],
        break_reasons=[b["reason"].splitlines()[0] for b in tally.breaks],
        recompile_reasons=[line for message in reasons for line in _guard_lines(message)],
        ops_per_graph=tally.op_counts(),
        break_types=[event["type"] for event in events if event["user"]],
        skipped=[site["function"] for site in skipped if site["user"]],
        graph_ops=[[str(n.target) for n in gm.graph.nodes if n.op.startswith("call_")] for gm in tally.graphs],
    )


@dataclass
class Outcome:
    """One compiled call, error or not (``run_case``): what a lesson's comparison table shows."""
    error: str | None  # None, or "ExceptionType: break type"
    graphs: int
    graph_breaks: int
    break_types: list
    skipped: list
    ops_per_graph: list

    def __str__(self) -> str:
        return f"{'error: ' + self.error if self.error else 'no error'}, {self.graphs} graph(s), skipped {self.skipped or 'nothing'}"


def run_case(fn, *args, **compile_options) -> Outcome:
    """Compile ``fn`` (``fullgraph``/``dynamic``/``backend``), call it once on ``args`` and report what
    happened, catching the error a strict setting raises instead of propagating it."""
    clean_state()
    tally = GraphTally(inner=compile_options.pop("backend", None))
    compiled = compile_for_grading(fn, tally, compile_options)
    error = None
    with break_log() as events, skipped_log() as skipped:
        try:
            compiled(*args)
        except Exception as exc:  # noqa: BLE001 - the outcome is the point
            kind = getattr(exc, "gb_type", "") or str(exc).strip().splitlines()[0][:80]
            error = f"{type(exc).__name__}: {kind}"
    # A frame whose compile raised is not "skipped": the error is the outcome.
    skipped = [] if error else [site["function"] if site["function"] != "?" else site["type"] for site in skipped if site["user"]]
    return Outcome(error=error, graphs=len(tally.graphs), graph_breaks=max(len(tally.breaks), _break_counter()),
                   break_types=[event["type"] for event in events if event["user"]], skipped=skipped,
                   ops_per_graph=tally.op_counts())


def tally_calls(fn, calls, **compile_options) -> Tally:
    """Compile ``fn`` and call it once per argument tuple in ``calls``; see ``tally_run``."""

    def driver(compiled):
        for args in calls:
            compiled(*args)

    return tally_run(fn, driver, **compile_options)


def fullgraph_error(fn, *args, **compile_options) -> str | None:
    """Compile ``fn`` with fullgraph=True and call it once; the break's first line, or None."""
    clean_state()
    try:
        torch.compile(fn, backend=GraphTally(), fullgraph=True, **compile_options)(*args)
    except torch._dynamo.exc.Unsupported as exc:
        return str(exc).splitlines()[0]
    return None


def guard_count(fn, *args) -> int:
    """How many guards Dynamo installs for one call of ``fn`` (every guard is kept)."""
    clean_state()
    sizes = []

    def keep_all(entries):
        sizes.append(len(entries))
        return [True] * len(entries)

    torch.compile(fn, backend=GraphTally(), options={"guard_filter_fn": keep_all})(*args)
    return sum(sizes)


@dataclass
class CallRecord:
    """One call of ``call_timeline``: what compiling cost during that call."""
    seconds: float  # wall time of the call, compiling included
    graphs: int  # graphs compiled during the call
    recompiles: int  # of those compiles, how many were recompilations (compile id F/C with C > 0)
    compiled: bool  # whether compiled code ran during the call
    ops: int = 0  # operations in the graphs compiled during the call (what was traced)


def call_timeline(fn, calls, **compile_options) -> list[CallRecord]:
    """Compile ``fn`` and call it once per argument tuple in ``calls``; one ``CallRecord`` per call.

    For lessons that plot recompiles and compile time call by call. ``compile_options`` as for
    ``tally_run`` (``backend="inductor"`` or ``"aot_eager"`` makes each compile do real work).
    """
    import time

    clean_state()
    tally = GraphTally(inner=compile_options.pop("backend", None))
    compiled = compile_for_grading(fn, tally, compile_options)
    records = []
    for args in calls:
        graphs, runs = len(tally.graphs), tally.runs
        started = time.perf_counter()
        compiled(*args)
        seconds = time.perf_counter() - started
        new_ids = set(tally.compile_ids[graphs:])
        records.append(CallRecord(seconds=seconds, graphs=len(tally.graphs) - graphs,
                                  recompiles=sum(1 for cid in new_ids if _recompile_index(cid) > 0), compiled=tally.runs > runs,
                                  ops=sum(tally.op_counts()[graphs:])))
    return records


def python_version() -> str:
    return sys.version.split()[0]


# -- chapters 5 and 6: compile time and guard overhead ----------------------------------------

def recording_filter(user_filter=None):
    """A guard_filter_fn that keeps what ``user_filter`` keeps (every guard without one) and records,
    per compile, (guards offered, guards kept) in the list it returns alongside."""
    seen: list = []

    def record(entries):
        keep = [bool(k) for k in user_filter(entries)] if user_filter is not None else [True] * len(entries)
        seen.append((len(entries), sum(keep)))
        return keep

    return record, seen


def guard_report(fn, calls, options: dict, driver=None) -> dict:
    """Compile ``fn`` (its guards filtered by ``options["guard_filter_fn"]`` if any), run the schedule and
    report: guards offered/kept (summed over compiles), graph inputs (placeholders) of each graph,
    graphs, and for each call whether compiled code ran with guard evaluation skipped (the stance)."""
    clean_state()
    record, seen = recording_filter(options.get("guard_filter_fn"))
    tally = GraphTally()
    skipped_runs = [0]

    def backend(gm, example_inputs):
        inner = tally(gm, example_inputs)

        def run(*args):
            skipped_runs[0] += bool(torch._dynamo.eval_frame._stance.skip_guard_eval_unsafe)
            return inner(*args)

        return run

    stances: list = []
    kwargs = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic")}
    compiled = torch.compile(fn, backend=backend, options={"guard_filter_fn": record}, **kwargs)
    error = None
    for args in calls:
        before = skipped_runs[0]
        try:
            args = copy.deepcopy(args)
            driver(compiled, *args) if driver is not None else compiled(*args)
        except Exception as exc:  # noqa: BLE001 - reported, the other checks say more
            error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            break
        stances.append(skipped_runs[0] > before)
    clean_state()
    return {"offered": sum(s[0] for s in seen), "kept": sum(s[1] for s in seen), "compiles": len(seen),
            "inputs": [sum(1 for n in gm.graph.nodes if n.op == "placeholder") for gm in tally.graphs],
            "graphs": len(tally.graphs), "skipped_eval": stances, "error": error}


@contextlib.contextmanager
def dynamo_config(values: dict):
    """Patch ``torch._dynamo.config`` keys for the block (e.g. back to their defaults for a baseline)."""
    with torch._dynamo.config.patch(**values):
        yield


def config_defaults(keys) -> dict:
    """The default value of each ``torch._dynamo.config`` key."""
    defaults = torch._dynamo.config._config
    return {key: copy.copy(defaults[key].default) for key in keys if key in defaults}


def lookup_us(compiled, calls, driver=None, rounds: int = 1, best_of: int = 1, statistic: str = "mean") -> float:
    """Microseconds of the profiler's "TorchDynamo Cache Lookup" events (guard evaluation) over
    ``rounds`` passes of the schedule through an already warm compiled callable: their mean, or with
    ``statistic="median"`` the cost of a typical call (a schedule that skips guard evaluation after
    its warm-up calls is judged by its serving calls, and a few calls slowed by other processes do
    not move it). With ``best_of``, the lowest such value of that many profiled runs (other
    processes only ever add time)."""
    if best_of > 1:
        return min(lookup_us(compiled, calls, driver, rounds, statistic=statistic) for _ in range(best_of))
    import statistics

    from torch.profiler import profile

    with profile() as prof:
        for _ in range(rounds):
            for args in calls:
                driver(compiled, *args) if driver is not None else compiled(*args)
    # The raw Kineto events, not prof.events(): building the Python event tree costs ~1 s per pass
    # of a 32-layer schedule here (thousands of op events), the raw list ~0.01 s, same durations.
    times = [e.duration_ns() / 1000 for e in prof.profiler.kineto_results.events() if e.name() == "TorchDynamo Cache Lookup"]
    if not times:
        return float("nan")
    return statistics.median(times) if statistic == "median" else statistics.fmean(times)


def compile_with(fn, backend: str, options: dict | None = None):
    """``torch.compile`` with a real backend, for timings (``options``: the learner's guard filter)."""
    options = options or {}
    kwargs = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic")}
    if options.get("guard_filter_fn") is not None:
        kwargs["options"] = {"guard_filter_fn": options["guard_filter_fn"]}
    return torch.compile(fn, backend=backend, **kwargs)


def cold_compile_seconds(fn, calls, backend: str = "aot_eager", driver=None, options: dict | None = None,
                         clock: str = "wall") -> float:
    """Seconds of running the schedule from a cold start: Dynamo reset, and for Inductor its caches
    disabled and a fresh, empty TORCHINDUCTOR_CACHE_DIR, so every graph really compiles. ``options``:
    ``fullgraph``/``dynamic`` as the grader compiles (other keys are ignored).

    ``clock="wall"``: the whole schedule as a user waits for it. ``clock="compile"``: only the time
    Dynamo itself records for compiling frames (the sum of ``entire_frame_compile_time_s`` in its
    compilation metrics, backend compile included). Graders use "compile": on this shared machine
    the run part of a cold schedule varied 5x between identical runs while the compile part stayed
    within a few percent. Automatic-dynamic profiles (PGO) are off, so no run learns from the last."""
    import gc
    import tempfile
    import time

    from torch._dynamo import utils as dynamo_utils

    clean_state()
    with contextlib.ExitStack() as stack:
        if backend == "inductor":
            import torch._inductor.config as inductor_config
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="inductor-cold-"))
            old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder
            stack.callback(lambda: os.environ.__setitem__("TORCHINDUCTOR_CACHE_DIR", old) if old is not None
                           else os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None))
            stack.enter_context(inductor_config.patch(force_disable_caches=True))
        stack.enter_context(torch._dynamo.config.patch(automatic_dynamic_local_pgo=False))
        kwargs = {k: v for k, v in (options or {}).items() if k in ("fullgraph", "dynamic")}
        compiled = torch.compile(fn, backend=backend, **kwargs)
        # A full garbage collection over what earlier compiles left behind can take most of a second
        # and lands at random: collect first, and not while timing (as timeit does).
        gc.collect()
        gc.disable()
        stack.callback(gc.enable)
        dynamo_utils.clear_compilation_metrics()
        started = time.perf_counter()
        with torch.no_grad():
            for args in calls:
                args = copy.deepcopy(args)
                driver(compiled, *args) if driver is not None else compiled(*args)
        seconds = time.perf_counter() - started
        if clock == "compile":
            seconds = sum(r.entire_frame_compile_time_s or 0.0 for r in dynamo_utils.get_compilation_metrics())
    clean_state()
    return seconds


def frame_report(fn, calls, **compile_options) -> list[dict]:
    """Compile ``fn`` and run the schedule; one record per frame Dynamo compiled, from its compilation
    metrics (what TORCH_TRACE's compilation_metrics shows): function, compile id, graph ops,
    entire_frame_compile_time_s."""
    from torch._dynamo import utils as dynamo_utils

    clean_state()
    compiled = torch.compile(fn, backend=compile_options.pop("backend", "eager"), **compile_options)
    dynamo_utils.clear_compilation_metrics()
    for args in calls:
        compiled(*args)
    records = [{"function": r.co_name, "compile_id": r.compile_id, "graph_ops": r.graph_op_count or 0,
                "seconds": r.entire_frame_compile_time_s or 0.0} for r in dynamo_utils.get_compilation_metrics()]
    clean_state()
    return records


def compile_times_table() -> str:
    """``torch._dynamo.utils.compile_times()``: Dynamo's own table of time per compile phase."""
    from torch._dynamo.utils import compile_times
    return compile_times()


# -- observability and reporting issues (chapters 7 and 8) --------------------------------------
#
# What TORCH_TRACE writes is the stream of the "torch.__trace" logger: one record per event, a JSON
# header (with frame_id, frame_compile_id, attempt) and an optional payload. ``structured_trace``
# listens to that stream in this process, so a master can produce the same trace the learner reads
# with tlparse, without a second process; ``read_trace`` parses a TORCH_TRACE file. Each
# ``compilation_metrics`` record describes one compile: function, compile id, ops, seconds, the
# guard that made it a recompile.

TORCH_DIR = _TORCH_DIR
ABLATION_BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")


class _TraceRecorder(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[tuple[dict, str | None]] = []

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if isinstance(metadata, dict):
            self.records.append((metadata, getattr(record, "payload", None)))


@contextlib.contextmanager
def structured_trace():
    """Collect, as a list of (metadata, payload), the structured trace that TORCH_TRACE would write
    for everything compiled inside the block."""
    from torch._logging._internal import trace_log

    handler = _TraceRecorder()
    trace_log.addHandler(handler)
    try:
        yield handler.records
    finally:
        trace_log.removeHandler(handler)


def read_trace(path) -> list[tuple[dict, str | None]]:
    """Parse a TORCH_TRACE log (a file, or the directory TORCH_TRACE named: its newest log) into
    (metadata, payload) records. Each record is a glog-style line ending in a JSON object; its
    payload, if any, follows on lines that start with a tab."""
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        logs = sorted(path.glob("*.log"), key=lambda p: p.stat().st_mtime)
        if not logs:
            raise FileNotFoundError(f"no trace log in {path}")
        path = logs[-1]
    records: list[list] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("\t"):
            if records:
                records[-1][1] = (records[-1][1] + "\n" if records[-1][1] is not None else "") + line[1:]
            continue
        start = line.find("] {")
        if start < 0:
            continue
        try:
            records.append([json.loads(line[start + 2:]), None])
        except ValueError:
            continue
    return [(metadata, payload) for metadata, payload in records]


@dataclass
class Compilation:
    """One ``compilation_metrics`` record of a trace: one compile of one frame."""
    compile_id: str  # "F/C": frame F, its C-th compile (C > 0: a recompile)
    attempt: int  # > 0 when Dynamo restarted the analysis (tlparse writes [F/C_attempt])
    function: str
    ops: int | None
    seconds: float | None  # entire_frame_compile_time_s
    recompile_reason: str | None
    fail_type: str | None
    guards: int | None

    @property
    def frame(self) -> int:
        return int(self.compile_id.split("/")[0])


def compilations(records) -> list[Compilation]:
    """The ``compilation_metrics`` records of a trace (from ``structured_trace`` or ``read_trace``), in order."""
    found = []
    for metadata, _ in records:
        metrics = metadata.get("compilation_metrics")
        if not isinstance(metrics, dict):
            continue
        compile_id = metrics.get("compile_id") or f"{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}"
        found.append(Compilation(compile_id=str(compile_id), attempt=int(metadata.get("attempt") or 0),
                                 function=metrics.get("co_name") or "?", ops=metrics.get("graph_op_count"),
                                 seconds=metrics.get("entire_frame_compile_time_s"),
                                 recompile_reason=metrics.get("recompile_reason"), fail_type=metrics.get("fail_type"),
                                 guards=metrics.get("guard_count")))
    return found


_RECOMPILING = re.compile(r"Recompiling function (\S+) in (.+?):(\d+)")


@dataclass
class CallLog:
    """What compiling did during one call of ``call_log``: what TORCH_LOGS=graph_breaks,recompiles shows."""
    compile_ids: list  # compile ids of the graphs compiled during the call
    breaks: list  # graph breaks: {"reason", "type", "file", "line", "function", "code"}
    recompiled: list  # [{"function", "file", "line", "guards": ["F/C: guard", ...]}], one per recompile message


def call_log(fn, calls, prefer_file: str | None = None, **compile_options) -> list[CallLog]:
    """Compile ``fn`` (``backend``, ``dynamic``, ``fullgraph`` as for torch.compile) and call it once
    per argument tuple in ``calls``; one ``CallLog`` per call. Starts from a clean Dynamo state."""
    clean_state()
    tally = GraphTally(inner=compile_options.pop("backend", None), prefer_file=prefer_file)
    compiled = compile_for_grading(fn, tally, compile_options)
    logs = []
    with recompile_reasons() as reasons:
        for args in calls:
            graphs, breaks, seen = len(tally.graphs), len(tally.breaks), len(reasons)
            compiled(*args)
            recompiled = []
            for message in reasons[seen:]:
                match = _RECOMPILING.search(message)
                recompiled.append({"function": match[1] if match else "?", "file": match[2] if match else "",
                                   "line": int(match[3]) if match else 0, "guards": _guard_lines(message)})
            logs.append(CallLog(compile_ids=tally.compile_ids[graphs:], breaks=tally.breaks[breaks:], recompiled=recompiled))
    return logs


def captured_graphs(fn, *args, **compile_options) -> list:
    """The FX graphs Dynamo hands the backend for one call of ``fn`` (what TORCH_LOGS=graph_code prints)."""
    clean_state()
    tally = GraphTally(inner=compile_options.pop("backend", None))
    compile_for_grading(fn, tally, compile_options)(*args)
    return list(tally.graphs)


def guard_names(fn, *args) -> list[tuple[str, str]]:
    """(guard type, source) of every guard Dynamo installs for one call of ``fn``, e.g.
    ("EQUALS_MATCH", "G['CONFIG']['activation']"): what TORCH_LOGS=guards lists."""
    clean_state()
    found: list[tuple[str, str]] = []

    def keep_all(entries):
        found.extend((str(entry.guard_type), str(entry.name)) for entry in entries)
        return [True] * len(entries)

    torch.compile(fn, backend=GraphTally(), options={"guard_filter_fn": keep_all})(*args)
    return found


def refresh_decompositions() -> None:
    """Inductor copies its decomposition table the first time a backend asks for it; forget that copy, so
    that decompositions registered since (a course's planted bug, say) are seen by the next compile."""
    from torch._inductor import decomposition

    decomposition.fast_random_decomps.cache_clear()


def _same(actual, expected, rtol: float = 1e-4, atol: float = 1e-5) -> str | None:
    """None when ``actual`` matches ``expected`` (tensors, numbers, lists, tuples, dicts); else how they differ."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor) or actual.shape != expected.shape:
            return f"expected a tensor of shape {tuple(expected.shape)}, got {getattr(actual, 'shape', type(actual).__name__)}"
        if not torch.allclose(actual.detach().double(), expected.detach().double(), rtol=rtol, atol=atol, equal_nan=True):
            worst = (actual.detach().double() - expected.detach().double()).abs().nan_to_num(float("inf")).max().item()
            return f"values differ from eager (largest difference {worst:.3g})"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"expected {len(expected)} results"
        return next((problem for problem in map(_same, actual, expected) if problem), None)
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return "expected the same keys"
        return next((problem for problem in (_same(actual[k], expected[k]) for k in expected) if problem), None)
    if isinstance(expected, float):
        return None if isinstance(actual, (int, float)) and abs(actual - expected) <= atol + rtol * abs(expected) else f"{actual!r} != {expected!r}"
    return None if actual == expected else f"{actual!r} != {expected!r}"


@dataclass
class Stage:
    """One backend of an ablation: "ok", "exception" (with the error) or "wrong result" (with how)."""
    backend: str
    status: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.backend:>28}: {self.status}" + (f" ({self.detail})" if self.detail else "")


def ablate(fn, driver=None, backends=ABLATION_BACKENDS[:3], stop_at_first: bool = True) -> list[Stage]:
    """Run ``driver(callable)`` (default: ``callable()``) with ``fn`` itself, then with ``fn`` compiled by
    each backend in turn, from a clean Dynamo state each time; compare each run with the eager one.

    Returns one ``Stage`` per backend tried; with ``stop_at_first`` it stops at the first that fails.
    """
    driver = driver or (lambda f: f())
    torch.manual_seed(0)
    expected = _detach(driver(fn))
    stages = []
    for backend in backends:
        clean_state()
        refresh_decompositions()
        torch.manual_seed(0)
        try:
            got = _detach(driver(torch.compile(fn, backend=backend)))
        except Exception as exc:  # noqa: BLE001 - a failing stage is the finding
            text = str(exc).strip().splitlines()
            stages.append(Stage(backend, "exception", f"{type(exc).__name__}: {text[0] if text else ''}"[:300]))
        else:
            problem = _same(got, expected)
            stages.append(Stage(backend, "wrong result" if problem else "ok", problem or ""))
        if stop_at_first and stages[-1].status != "ok":
            break
    clean_state()
    return stages


def first_failing(stages: list[Stage]) -> Stage | None:
    return next((stage for stage in stages if stage.status != "ok"), None)


def bisect(test_fn, quiet: bool = True):
    """``CompilerBisector.do_bisect(test_fn)`` from a clean state: the BisectionResult (backend, subsystem,
    bisect_number, debug_info) or None when every backend passes. ``quiet`` hides its progress lines."""
    import io

    from torch._inductor.compiler_bisector import CompilerBisector

    clean_state()
    refresh_decompositions()
    with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
        result = CompilerBisector.do_bisect(test_fn)
    clean_state()
    return result


# -- running a learner's reproducer in a fresh process (chapter 8.3) ----------------------------

_RAISING_HELPERS = {"_check", "_check_with", "_check_value", "_check_type", "_check_index", "_check_is_size",
                    "_check_not_implemented", "_check_tensor_all", "_check_tensor_all_with", "_assert", "_assert_async",
                    "assert_close", "assert_allclose"}


PRESTARTED_REPRODUCERS: list = []  # interpreters waiting for run_reproducer's job, oldest first


def run_reproducer(path: str, *, entry: str = "fn", inputs: str = "make_inputs", backends=("eager",),
                   culprit: str | None = None, timeout: float = 120) -> dict:
    """Import the file at ``path`` in a fresh interpreter and call ``entry(*inputs())`` eagerly, then
    compiled with each backend (a clean Dynamo state each time), comparing each result with the eager one.

    With ``culprit`` ("ns::op"), the first backend is run once more with that operator's entry removed
    from Inductor's decomposition table. Returns {"import": error or None, "runs": {backend: run}}, where
    a run is {"status": "ok" | "raised" | "mismatch", ...} with the exception's type, message and frames.
    """
    import secrets
    import subprocess
    import tempfile

    nonce = secrets.token_hex(12)
    job = {"path": os.path.abspath(path), "entry": entry, "inputs": inputs, "backends": list(backends),
           "culprit": culprit, "nonce": nonce}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    launcher = f"import sys; sys.path.insert(0, {root!r}); from autograder.probe import _reproducer_child; _reproducer_child()"
    if PRESTARTED_REPRODUCERS:  # started before the grading child dropped privileges (autograder._child)
        started = PRESTARTED_REPRODUCERS.pop(0)
        try:
            out, err = started.communicate(json.dumps(job) + "\n", timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                started.kill()
            except OSError:
                pass  # the process group goes at the end of the grading anyway
            return {"error": f"the reproducer did not finish within {timeout:.0f} s"}
        proc = subprocess.CompletedProcess(started.args, started.returncode, out, err)
    else:
        with tempfile.TemporaryDirectory(prefix="repro-") as workdir:
            try:
                proc = subprocess.run([sys.executable, "-I", "-B", "-c", launcher], input=json.dumps(job) + "\n", capture_output=True,
                                      text=True, timeout=timeout, cwd=workdir, env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": workdir})
            except subprocess.TimeoutExpired:
                return {"error": f"the reproducer did not finish within {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith(nonce):
            try:
                return json.loads(line[len(nonce):])
            except ValueError:
                break
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
    return {"error": f"the reproducer's process ended (exit status {proc.returncode}) without a report: {' | '.join(tail)}"[:1500]}


def _describe_raise(exc: BaseException, path: str) -> dict:
    """An exception raised by a reproducer: its type and message, and the frames of the error that
    started it (following ``raise ... from``), each marked "repro", "torch" or "other"."""
    root = exc
    while True:
        nxt = root.__cause__ or (None if root.__suppress_context__ else root.__context__)
        if nxt is None or nxt is root:
            break
        root = nxt
    frames = []
    for frame in __import__("traceback").extract_tb(root.__traceback__):
        where = ("repro" if os.path.abspath(frame.filename) == path else
                 "torch" if frame.filename.startswith(_TORCH_DIR) else "other")
        frames.append({"where": where, "file": frame.filename, "line": frame.lineno, "function": frame.name,
                       "code": (frame.line or "").strip()})
    return {"status": "raised", "type": type(exc).__name__, "message": str(exc)[:3000],
            "root_type": type(root).__name__, "root_message": str(root)[:1000], "frames": frames[-40:]}


def _reproducer_child() -> None:
    """The body of ``run_reproducer``'s interpreter. The job (with the nonce that marks the report) is
    read before the reproducer is imported, and the report goes to a copy of stdout taken before it."""
    import importlib.util

    job = json.loads(sys.stdin.readline())
    nonce = job.pop("nonce")
    channel = os.dup(1)
    path = job["path"]
    report: dict = {"import": None, "runs": {}}
    try:
        spec = importlib.util.spec_from_file_location("reproducer", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["reproducer"] = module
        spec.loader.exec_module(module)
        fn, make_inputs = getattr(module, job["entry"]), getattr(module, job["inputs"])
    except BaseException as exc:  # noqa: BLE001 - reported, not raised
        report["import"] = _describe_raise(exc, path)
    else:
        def run(backend):
            clean_state()
            refresh_decompositions()
            torch.manual_seed(0)
            try:
                args = make_inputs()
                target = fn if backend is None else torch.compile(fn, backend=backend)
                return {"status": "ok", "output": _detach(target(*args))}
            except BaseException as exc:  # noqa: BLE001
                return _describe_raise(exc, path)

        reference = run(None)
        report["runs"]["reference"] = {k: v for k, v in reference.items() if k != "output"}
        for backend in job["backends"]:
            outcome = run(backend)
            if outcome["status"] == "ok" and reference["status"] == "ok":
                problem = _same(outcome["output"], reference["output"])
                if problem:
                    outcome = {"status": "mismatch", "message": problem}
            report["runs"][backend] = {k: v for k, v in outcome.items() if k != "output"}
        if job.get("culprit") and job["backends"]:
            namespace, _, name = job["culprit"].partition("::")
            from torch._inductor import decomposition

            packet = getattr(getattr(torch.ops, namespace, None), name, None)
            op = getattr(packet, "default", None) if packet is not None else None
            if op is None or op not in decomposition.decompositions:
                report["culprit"] = "missing"
            else:
                del decomposition.decompositions[op]
                outcome = run(job["backends"][0])
                if outcome["status"] == "ok" and reference["status"] == "ok" and _same(outcome["output"], reference["output"]):
                    outcome = {"status": "mismatch"}
                report["culprit"] = {k: v for k, v in outcome.items() if k != "output"}
    os.write(channel, (nonce + json.dumps(report, default=str) + "\n").encode())
    os._exit(0)

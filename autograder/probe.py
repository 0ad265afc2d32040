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
            self.breaks.append({"reason": _first_paragraphs(reason.reason), **_site(reason.user_stack, self.prefer_file)})
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
    with recompile_reasons() as reasons:
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
        tally.breaks.append({"reason": result.error["message"],
                             **{k: result.error[k] for k in ("file", "line", "function", "code") if k in result.error}})
    result.graph_breaks = max(len(tally.breaks), _break_counter())
    result.break_sites = tally.breaks
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

    with recompile_reasons() as reasons:
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
    )


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

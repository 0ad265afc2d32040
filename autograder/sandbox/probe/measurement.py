"""``measure``: compile a callable with the grader's backend, replay a schedule of calls, and count.

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
import hashlib
import os
from dataclasses import dataclass, field

import torch
import torch._dynamo
import torch._dynamo.exc
from torch._dynamo.utils import counters
from .events import _guard_lines, break_log, recompile_reasons, skipped_log
from .output import captured_output
from .state import clean_state
from .tally import GraphTally, _break_type, _first_paragraphs, _site


# -- measuring --------------------------------------------------------------------------------

@dataclass
class Measurement:
    calls: int = 0
    graphs: int = 0
    ops_per_graph: list = field(default_factory=list)
    graph_breaks: int = 0
    break_sites: list = field(default_factory=list)
    recompiles: int = 0
    resets: int = 0  # compiles again after the learner's code reset Dynamo during the calls (counted in recompiles)
    recompile_reasons: list = field(default_factory=list)
    compiled_calls: int = 0
    # Calls (0-based) in which compiled code ran but what the driver returned did not come from it
    # (depends_on_compiled); they are not counted in compiled_calls.
    unfed_calls: list = field(default_factory=list)
    skipped_frames: int = 0
    error: dict | None = None  # the first exception a call raised, described for the learner
    outputs: list = field(default_factory=list, repr=False)
    graph_targets: list = field(default_factory=list, repr=False)
    graph_ops: list = field(default_factory=list, repr=False)  # per graph, its ops by name (for the learner's diagram)
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
            "resets": self.resets,
            "recompile_reasons": self.recompile_reasons,
            "compiled_calls": self.compiled_calls,
            "unfed_calls": self.unfed_calls,
            "skipped_frames": self.skipped_frames,
            "graph_ops": self.graph_ops,
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


GRAPH_OPS_KEPT = 24  # ops named per graph in the result: enough to recognise the code, small in the JSON

# Dynamo's words for "the traced code raised an ordinary Python error" (gb_type fragments, 2.13).
_ORDINARY_BREAKS = ("failed to find name", "when making fake tensor call", "Observed exception", "from user code")


def _ordinary_cause(exc: BaseException) -> bool:
    """Whether a compile error may be the learner's code failing as plain Python (a typo, a wrong
    argument, a shape mismatch) rather than something Dynamo cannot trace."""
    if isinstance(exc, torch._dynamo.exc.TorchRuntimeError):  # a fake-tensor run of an op failed
        return True
    if isinstance(exc, torch._dynamo.exc.Unsupported):
        gb_type = getattr(exc, "gb_type", "") or (str(exc).splitlines() or [""])[0]
        if any(fragment in gb_type for fragment in _ORDINARY_BREAKS):
            return True
    cause = exc.__cause__
    return cause is not None and not isinstance(cause, torch._dynamo.exc.TorchDynamoException)


def plain_python_error(fn, args: tuple, driver=None, prefer_file: str | None = None) -> dict | None:
    """Run one call without compiling; what it raises, described at the learner's line (None when it
    runs). Plain Python first: an error the code has without torch.compile is the one to fix first.
    Only for describing a compile error that already failed the grade: the verdict never reads it."""
    try:
        args = copy.deepcopy(args)
        driver(fn, *args) if driver is not None else fn(*args)
    except Exception as exc:  # the learner's own code, run as plain Python
        return describe_error(exc, prefer_file)
    return None


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
            driver=None, capture_output: bool = False, capture_aot: bool = False, probe_dependence: bool = False) -> Measurement:
    """Compile ``fn`` with a fresh GraphTally and call it once per argument tuple in ``calls``.

    With ``driver``, each call is ``driver(compiled, *args)`` instead: the learner's own eager code
    (a loop, a caller) that receives the grader's compiled function. ``capture_output`` records what
    each call prints and logs; ``capture_aot`` keeps the ops of the AOT graphs (see GraphTally).
    ``probe_dependence`` (with a driver): a call counts as compiled only if what the driver returned
    came from the compiled code (``depends_on_compiled``).
    """
    clean_state()
    tally = GraphTally(inner=options.get("backend"), prefer_file=prefer_file, capture_aot=capture_aot)
    compiled = compile_for_grading(fn, tally, options)
    result = Measurement()
    ran: list[bool] = []  # per call: whether any compiled graph ran during it
    with recompile_reasons() as reasons, break_log(prefer_file) as events, skipped_log() as skipped:
        for args in calls:
            before = tally.runs
            result.calls += 1
            ran.append(False)
            seen = {"stdout": "", "logs": []}
            given = args
            try:
                with (captured_output() if capture_output else contextlib.nullcontext(seen)) as seen:
                    args = copy.deepcopy(args)
                    output = driver(compiled, *args) if driver is not None else compiled(*args)
            except Exception as exc:  # the learner's code, or Dynamo refusing it
                result.error = describe_error(exc, prefer_file)
                # Only when the schedule stops here: a later call must not see what the replay did.
                if stop_on_error and result.error.get("plain") is None and _ordinary_cause(exc):
                    plain = plain_python_error(fn, given, driver, prefer_file)
                    if plain is not None:
                        result.error["plain"] = plain
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
                ran[-1] = True
            result.outputs.append(_detach(output))
    if driver is not None and probe_dependence and result.compiled_calls:
        depends = depends_on_compiled(compiled, tally, driver, calls, result.outputs)
        result.unfed_calls = [i for i, (compiled_ran, fed) in enumerate(zip(ran, depends)) if compiled_ran and fed is False]
        result.compiled_calls -= len(result.unfed_calls)
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
    result.resets = tally.resets
    result.recompile_reasons = [line for message in reasons for line in _guard_lines(message)]
    result.skipped_frames = max(0, counters["frames"]["total"] - counters["frames"]["ok"])
    result.graph_targets = tally.targets()
    result.graph_ops = [[str(n.target) for n in gm.graph.nodes if n.op.startswith("call_")][:GRAPH_OPS_KEPT] for gm in tally.graphs]
    result.aot_targets = list(tally.aot_targets)
    result.user_calls = tally.user_calls()
    result.custom_ops = tally.custom_ops()
    return result


class _Opaque(Exception):
    """A value whose contents the digest does not read."""


def _digest(value) -> str | None:
    """What a call returned, as a hash of its structure and bytes; None for what it cannot read."""
    digest = hashlib.sha256()

    def walk(item):
        if isinstance(item, torch.Tensor):
            if item.layout != torch.strided:
                raise _Opaque
            data = item.detach().cpu().contiguous()
            digest.update(f"T{data.dtype}{tuple(data.shape)}:".encode())
            digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes())
        elif type(item) in (bool, int, float, complex, str, bytes, type(None)):
            digest.update(f"{type(item).__name__}:{item!r};".encode())
        elif type(item) in (list, tuple) or (isinstance(item, tuple) and hasattr(item, "_fields")):
            digest.update(f"{type(item).__name__}[".encode())
            for element in item:
                walk(element)
            digest.update(b"]")
        elif type(item) is dict:
            digest.update(b"{")
            for key, element in item.items():
                walk(key)
                walk(element)
            digest.update(b"}")
        else:
            raise _Opaque

    try:
        walk(value)
    except _Opaque:
        return None
    return digest.hexdigest()


DEPENDENCE_TIMEOUT_S = 30.0


def depends_on_compiled(compiled, tally: GraphTally, driver, calls: list, outputs: list) -> list:
    """Per call of the schedule: whether what ``driver`` returned came from the compiled code.

    A copy of this process (forked after the schedule ran, so nothing it does reaches the grading)
    runs the schedule again with every compiled graph returning garbage (``tally.poisoned``). A call
    whose result is the same as before ignored what the compiled code returned: its work was done
    elsewhere, by eager code, on inputs of its own (False). A result that changed, a call that now
    raises: True. None where it cannot be told (the call raised the first time, a result the digest
    does not read, the copy did not finish), which never fails a grade. A driver that keeps state
    sees the rerun as later calls; its results then differ anyway (True, at worst a missed find)."""
    expected = [None if isinstance(out, BaseException) else _digest(out) for out in outputs]

    def work(state):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        tally.poisoned = True
        seen = []
        for args in calls[:len(expected)]:
            try:
                seen.append(_digest(driver(compiled, *copy.deepcopy(args))))
            except BaseException:  # noqa: BLE001 - garbage in made it fail: it used what came out of the graphs
                seen.append("raised")
        return {"digests": seen}

    from .forked import in_forked_child

    report = in_forked_child(work, DEPENDENCE_TIMEOUT_S)
    seen = report.get("digests") if isinstance(report, dict) else None
    if not isinstance(seen, list) or len(seen) != len(expected):
        return [None] * len(expected)
    return [None if before is None or after is None else after != before for before, after in zip(expected, seen)]


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

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
import os
from dataclasses import dataclass, field

import torch
import torch._dynamo
import torch._dynamo.exc
from torch._dynamo.utils import counters

from autograder.sandbox.files import materialize
from .events import _guard_lines, break_log, recompile_reasons, skipped_log
from .output import captured_output
from .state import clean_state, config_snapshot
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
    graph_runs: list = field(default_factory=list)  # per call that returned: how many compiled graphs ran during it
    # Calls (0-based) in which compiled code ran but what the driver returned did not come from it
    # (depends_on_compiled); they are not counted in compiled_calls.
    unfed_calls: list = field(default_factory=list)
    # [call, values computed elsewhere, of how many]: calls in which some of the floating values the
    # driver returned did not come from the compiled code; not counted in compiled_calls either.
    partly_fed_calls: list = field(default_factory=list)
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
    # Chapter 6 (record_guards): what probe.guard_report reports, from this same run; it stays in
    # the learner's process (the guard kinds send what their checks need).
    guard_report: dict | None = field(default=None, repr=False)
    # Keys of torch._dynamo.config that differed, at some compile, from what the calls started with:
    # {key: (old, new)} (the child reports the ones the exercise does not allow).
    config_at_compile: dict = field(default_factory=dict, repr=False)

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
            "graph_runs": self.graph_runs,
            "unfed_calls": self.unfed_calls,
            "partly_fed_calls": self.partly_fed_calls,
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


def _set_by_compile(options: dict) -> dict:
    """The keys of torch._dynamo.config that torch.compile itself sets while it compiles with
    ``options`` (torch 2.13: ``dynamic`` and ``recompile_limit`` are applied as config patches)."""
    found = {}
    if options.get("dynamic") is True:
        found["assume_static_by_default"] = False
    elif options.get("dynamic") is False:
        found.update(automatic_dynamic_shapes=False, assume_static_by_default=True)
    if options.get("recompile_limit") is not None:
        found["recompile_limit"] = options["recompile_limit"]
    return found


def compile_for_grading(fn, tally: GraphTally, options: dict):
    """``torch.compile`` with the grader's backend; ``options`` holds fullgraph/dynamic/recompile_limit only."""
    kwargs = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic", "recompile_limit")}
    if options.get("guard_filter_fn") is not None:  # chapter 6: the learner's guard filter
        kwargs["options"] = {"guard_filter_fn": options["guard_filter_fn"]}
    return torch.compile(fn, backend=tally, **kwargs)


def measure(fn, calls: list, options: dict, prefer_file: str | None = None, stop_on_error: bool = True, *,
            driver=None, capture_output: bool = False, capture_aot: bool = False, probe_dependence: bool = False,
            record_guards: bool = False) -> Measurement:
    """Compile ``fn`` with a fresh GraphTally and call it once per argument tuple in ``calls``.

    With ``driver``, each call is ``driver(compiled, *args)`` instead: the learner's own eager code
    (a loop, a caller) that receives the grader's compiled function. ``capture_output`` records what
    each call prints and logs; ``capture_aot`` keeps the ops of the AOT graphs (see GraphTally).
    ``probe_dependence`` (with a driver): a call counts as compiled only if what the driver returned
    came from the compiled code (``depends_on_compiled``). ``record_guards``: also what
    ``probe.guard_report`` would report (``Measurement.guard_report``), from this run instead of a
    second compile of the whole schedule: the learner's guard filter (if any) wrapped by one that
    records what each compile offered and kept, and the configuration each compile saw.
    """
    clean_state()
    tally = GraphTally(inner=options.get("backend"), prefer_file=prefer_file, capture_aot=capture_aot)
    tally.config_baseline = {**config_snapshot(), **_set_by_compile(options)}
    guards_counted = contextlib.nullcontext()
    if record_guards:
        from .guards import can_count_guards, error_line, guards_offered, recording_filter, report_from

        configs: list = []
        if options.get("guard_filter_fn") is None and can_count_guards():
            guards_counted = guards_offered(tally, configs)  # no filter of ours: each guard built once, as in the learner's run
        else:
            record, offered_kept = recording_filter(options.get("guard_filter_fn"), None, configs)
            options = {**options, "guard_filter_fn": record}
            guards_counted = contextlib.nullcontext(offered_kept)
        skipping: list[bool] = []  # per call that returned: whether compiled code ran with guard evaluation skipped
        first_error = None
    compiled = compile_for_grading(fn, tally, options)
    result = Measurement()
    ran: list[bool] = []  # per call: whether any compiled graph ran during it
    with (guards_counted as offered_kept, recompile_reasons() as reasons, break_log(prefer_file) as events,
          skipped_log() as skipped):
        for args in calls:
            before, skipped_before = tally.runs, tally.runs_skipping_guards
            result.calls += 1
            ran.append(False)
            seen = {"stdout": "", "logs": []}
            given = args
            try:
                with (captured_output() if capture_output else contextlib.nullcontext(seen)) as seen:
                    args = given = materialize(copy.deepcopy(args))  # a file the schedule rewrites, written now
                    output = driver(compiled, *args) if driver is not None else compiled(*args)
            except Exception as exc:  # the learner's code, or Dynamo refusing it
                if record_guards and first_error is None:
                    first_error = error_line(exc)
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
            result.graph_runs.append(tally.runs - before)
            if tally.runs > before:
                result.compiled_calls += 1
                ran[-1] = True
            if record_guards and first_error is None:
                skipping.append(tally.runs_skipping_guards > skipped_before)
            result.outputs.append(_detach(output))
    if record_guards:
        result.guard_report = {**report_from(offered_kept, tally, skipping, first_error), "config_at_compile": configs}
    if driver is not None and probe_dependence and result.compiled_calls:
        depends = depends_on_compiled(compiled, tally, driver, calls, result.outputs)
        result.unfed_calls = [i for i, (compiled_ran, found) in enumerate(zip(ran, depends)) if compiled_ran and found["fed"] is False]
        result.partly_fed_calls = [[i, found["unchanged"], found["floats"]] for i, (compiled_ran, found) in enumerate(zip(ran, depends))
                                   if compiled_ran and found["fed"] and found.get("unchanged")]
        result.compiled_calls -= len(result.unfed_calls) + len(result.partly_fed_calls)
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
    result.config_at_compile = dict(tally.config_at_compile)
    result.recompile_reasons = [line for message in reasons for line in _guard_lines(message)]
    result.skipped_frames = max(0, counters["frames"]["total"] - counters["frames"]["ok"])
    result.graph_targets = tally.targets()
    result.graph_ops = [[str(n.target) for n in gm.graph.nodes if n.op.startswith("call_")][:GRAPH_OPS_KEPT] for gm in tally.graphs]
    result.aot_targets = list(tally.aot_targets)
    result.user_calls = tally.user_calls()
    result.custom_ops = tally.custom_ops()
    return result


class _Opaque(Exception):
    """A value whose contents the comparison does not read."""


def _compare(before, after, tally: dict) -> None:
    """Walk what a call returned (``before``) and what it returned with garbage from the graphs
    (``after``): ``tally["changed"]`` once anything differs; for floating tensors, how many values
    there were (``floats``, NaN before left out) and how many stayed the same (``unchanged``)."""
    if isinstance(before, torch.Tensor):
        if before.layout != torch.strided:
            raise _Opaque
        if (not isinstance(after, torch.Tensor) or after.layout != torch.strided or after.dtype != before.dtype
                or after.shape != before.shape):
            tally["changed"] = True
            return
        old, new = before.detach().cpu(), after.detach().cpu()
        if old.is_floating_point() or old.is_complex():
            counted = ~torch.isnan(old)
            same = (old == new) & counted
            if int(same.sum()) < int(counted.sum()) or bool(torch.isnan(new)[~counted].logical_not().any()):
                tally["changed"] = True
            # A zero or an infinity that stays is a fill (a mask applied after the compiled call, a
            # padding), not work: only other values that stay count as computed elsewhere.
            filled = (old == 0) | torch.isinf(old)
            tally["floats"] += int((counted & ~filled).sum())
            tally["unchanged"] += int((same & ~filled).sum())
        elif not torch.equal(old, new):
            tally["changed"] = True
    elif type(before) in (bool, int, float, complex, str, bytes, type(None)):
        if type(after) is not type(before) or not (after == before):
            tally["changed"] = True
    elif isinstance(before, (list, tuple)):
        if type(after) is not type(before) or len(after) != len(before):
            tally["changed"] = True
            return
        for old, new in zip(before, after):
            _compare(old, new, tally)
    elif type(before) is dict:
        if type(after) is not dict or list(after) != list(before):
            tally["changed"] = True
            return
        for key in before:
            _compare(before[key], after[key], tally)
    else:
        raise _Opaque


DEPENDENCE_TIMEOUT_S = 30.0


def depends_on_compiled(compiled, tally: GraphTally, driver, calls: list, outputs: list) -> list:
    """Per call of the schedule: how much of what ``driver`` returned came from the compiled code.

    A copy of this process (forked after the schedule ran, so nothing it does reaches the grading)
    runs the schedule again with every compiled graph returning garbage (``tally.poisoned``) and
    compares each result with the first run's. Per call: ``{"fed": True}`` when the result changed
    (or the call now raises), with ``floats`` and ``unchanged``, the floating values it returned
    (zeros and infinities aside: fills) and how many of them stayed the same, computed by something
    else than the compiled code; ``{"fed": False}`` when it is the same: its work was done
    elsewhere, by eager code, on inputs of its own; ``{"fed": None}`` where it cannot be told (the
    call raised the first time, a result the comparison does not read, the copy did not finish),
    which never fails a grade. The garbage is NaN first; a call that looks unfed or partly fed is
    tried once more with large random values, and counts as fed where either changed it (an argmax
    or a threshold of NaN can come out as it was). A driver that keeps state sees the rerun as later
    calls: its results may differ anyway (at worst a missed find), and a call that this time runs no
    compiled code at all (the state it left fails every guard, past the recompile limit) tells
    nothing (None)."""
    first = _rerun_with_garbage(compiled, tally, driver, calls, outputs, "nan")
    doubtful = [i for i, found in enumerate(first) if found["fed"] is False or (found["fed"] and found.get("unchanged"))]
    if not doubtful:
        return first
    second = _rerun_with_garbage(compiled, tally, driver, calls, outputs, "random")
    merged = list(first)
    for i in doubtful:
        again = second[i]
        if first[i]["fed"] is False and again["fed"] is not None:
            merged[i] = again
        elif first[i]["fed"] and again["fed"]:  # partly fed under both: only values that stayed under both count
            merged[i] = {**first[i], "unchanged": min(first[i]["unchanged"], again["unchanged"])}
    return merged


def _rerun_with_garbage(compiled, tally: GraphTally, driver, calls: list, outputs: list, mode: str) -> list:
    unknown = [{"fed": None}] * len(outputs)

    def work(state):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        tally.poisoned = mode
        seen = []
        for args, before in zip(calls, outputs):
            runs = tally.runs
            try:
                after = driver(compiled, *copy.deepcopy(args))
            except BaseException:  # noqa: BLE001 - garbage in made it fail: it used what came out of the graphs
                seen.append({"fed": True, "floats": 0, "unchanged": 0, "raised": True} if tally.runs > runs else {"fed": None})
                continue
            if tally.runs == runs:
                # No compiled code ran this time (state the schedule left, a length the guards check,
                # made the call miss every entry past the recompile limit): nothing to tell from it.
                seen.append({"fed": None})
                continue
            if isinstance(before, BaseException):
                seen.append({"fed": None})
                continue
            counts = {"changed": False, "floats": 0, "unchanged": 0}
            try:
                _compare(before, after, counts)
            except _Opaque:
                seen.append({"fed": None})
                continue
            seen.append({"fed": counts["changed"], "floats": counts["floats"], "unchanged": counts["unchanged"]})
        return {"calls": seen}

    from .forked import in_forked_child

    report = in_forked_child(work, DEPENDENCE_TIMEOUT_S)
    seen = report.get("calls") if isinstance(report, dict) else None
    if not isinstance(seen, list) or len(seen) != len(outputs):
        return unknown
    return seen


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

"""Counting helpers for lessons and for masters that compute the truth live: tally a schedule, a driver, one call, the guards of one call, a timeline of calls."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import torch
import torch._dynamo
import torch._dynamo.exc
from .events import _guard_lines, break_log, recompile_reasons, skipped_log
from .measurement import _break_counter, compile_for_grading
from .messages import gb_id
from .state import clean_state
from .tally import GraphTally, _recompile_index


def frames_compiled() -> int:
    """How many frames Dynamo has tried to compile in this process so far (a count that only grows)."""
    from torch._dynamo.utils import counters

    return int(counters["frames"]["total"])


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
    # The ops of each graph, by name, in compile order (for pictures: autograder.learner.pictures.graph_diagram).
    graph_ops: list = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.graphs} graph(s), {self.graph_breaks} graph break(s), {self.recompiles} recompile(s), "
                f"{self.compiled_calls}/{self.calls} calls ran compiled code")

    @property
    def break_ids(self) -> list:
        """The graph-break registry id (``GB0059``) of each of ``break_reasons``: what a lesson asserts,
        because the id stays when Dynamo rewords a message."""
        return [gb_id(reason) for reason in self.break_reasons]

    @property
    def break_type_ids(self) -> list:
        """The registry id of each of ``break_types``."""
        return [gb_id(kind) for kind in self.break_types]


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

    @property
    def error_type(self) -> str | None:
        """The exception's type, e.g. "Unsupported"; None when the call ran."""
        return self.error.split(":", 1)[0] if self.error else None

    @property
    def break_type_ids(self) -> list:
        """The graph-break registry id of each of ``break_types``."""
        return [gb_id(kind) for kind in self.break_types]

    @property
    def error_id(self) -> str | None:
        """The registry id of the graph break the error reports, e.g. "GB0025"; None otherwise."""
        return gb_id(self.error.split(": ", 1)[1]) if self.error and ": " in self.error else None


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

"""Guards and their cost (chapter 6): which guards a compile keeps, and how long the cache lookup takes."""

from __future__ import annotations

import contextlib
import copy
import inspect
import os
import sys

import torch
import torch._dynamo
import torch._dynamo.exc
from .state import clean_state
from .tally import GraphTally


# -- chapters 5 and 6: compile time and guard overhead ----------------------------------------

def recording_filter(user_filter=None, config_keys=(), configs: list | None = None):
    """A guard_filter_fn that keeps what ``user_filter`` keeps (every guard without one) and records,
    per compile, (guards offered, guards kept) in the list it returns alongside. With ``configs`` (a
    list), it also appends the values the ``config_keys`` of ``torch._dynamo.config`` (None: every
    key) had while that compile built its guards: what a ``config.patch`` around the learner's own call was in effect."""
    seen: list = []

    def record(entries):
        if configs is not None:
            configs.append(_config_now(config_keys))
        keep = [bool(k) for k in user_filter(entries)] if user_filter is not None else [True] * len(entries)
        seen.append((len(entries), sum(keep)))
        return keep

    return record, seen


def _config_now(config_keys) -> dict:
    current = torch._dynamo.config.get_config_copy()
    keys = current if config_keys is None else [key for key in config_keys if key in current]
    return {key: copy.copy(current[key]) for key in keys}


def can_count_guards() -> bool:
    """Whether ``guards_offered`` knows how this torch builds guards (the arguments it reads)."""
    try:
        from torch._dynamo.guards import CheckFunctionManager
    except ImportError:
        return False
    return {"output_graph", "guard_filter_fn"} <= set(inspect.signature(CheckFunctionManager.__init__).parameters)


@contextlib.contextmanager
def guards_offered(backend, configs: list):
    """What ``recording_filter`` records (guards offered and kept, the configuration), for the
    compiles that ``backend`` is given while the block runs, where no guard filter is given: without
    giving one. Dynamo builds a frame's guards twice when there is a filter (once to offer them to
    it, once more with what it kept), which for a deep model was a third of a grading; the filter
    changes nothing else (``GuardBuilder`` keeps it and never reads it). Yields the list of
    (offered, kept). A compile with another backend (the learner's own ``torch.compile``) is not
    counted, as the grader's filter never saw it. Check ``can_count_guards()`` first."""
    from torch._dynamo.guards import CheckFunctionManager

    original = CheckFunctionManager.__init__
    signature = inspect.signature(original)
    seen: list = []

    def counting(*args, **kwargs):
        try:
            given = signature.bind(*args, **kwargs).arguments
            output_graph = given["output_graph"]
            wrapper = getattr(getattr(output_graph, "compiler_fn", None), "_torchdynamo_orig_backend", None)
            if given.get("guard_filter_fn") is None and getattr(wrapper, "compiler_fn", None) is backend:
                configs.append(_config_now(None))
                offered = len(output_graph.guards or ())
                seen.append((offered, offered))
        except Exception:  # noqa: BLE001 - counting must never change what Dynamo does
            pass
        return original(*args, **kwargs)

    CheckFunctionManager.__init__ = counting
    try:
        yield seen
    finally:
        CheckFunctionManager.__init__ = original


def guard_report(fn, calls, options: dict, driver=None, config_keys=()) -> dict:
    """Compile ``fn`` (its guards filtered by ``options["guard_filter_fn"]`` if any), run the schedule and
    report: guards offered/kept (summed over compiles), graph inputs (placeholders) of each graph,
    graphs, for each call whether compiled code ran with guard evaluation skipped (the stance), and,
    when ``config_keys`` names some (None: every key), for each compile the values they had when it
    built its guards (``config_at_compile``:
    the settings that shaped the compiled code, whether set globally or in a ``config.patch`` block
    around the call; read after the schedule, a block's setting is gone and a late one looks early)."""
    clean_state()
    configs: list = []
    record, seen = recording_filter(options.get("guard_filter_fn"), config_keys, configs)
    tally = GraphTally()
    stances: list = []
    kwargs = {k: v for k, v in options.items() if k in ("fullgraph", "dynamic")}
    compiled = torch.compile(fn, backend=tally, options={"guard_filter_fn": record}, **kwargs)
    error = None
    for args in calls:
        before = tally.runs_skipping_guards
        try:
            args = copy.deepcopy(args)
            driver(compiled, *args) if driver is not None else compiled(*args)
        except Exception as exc:  # noqa: BLE001 - reported, the other checks say more
            error = error_line(exc)
            break
        stances.append(tally.runs_skipping_guards > before)
    clean_state()
    report = report_from(seen, tally, stances, error)
    if config_keys is None or config_keys:
        report["config_at_compile"] = configs
    return report


def error_line(exc: BaseException) -> str:
    """What stopped a guard report's schedule, in one line."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def report_from(offered_kept: list, tally: GraphTally, skipped_eval: list, error: str | None) -> dict:
    """A guard report from what ``recording_filter`` recorded and the graphs ``tally`` was given."""
    return {"offered": sum(s[0] for s in offered_kept), "kept": sum(s[1] for s in offered_kept), "compiles": len(offered_kept),
            "inputs": [sum(1 for n in gm.graph.nodes if n.op == "placeholder") for gm in tally.graphs],
            "graphs": len(tally.graphs), "skipped_eval": skipped_eval, "error": error}



@contextlib.contextmanager
def _native_stderr_closed():
    """Send what C++ code writes to file descriptor 2 to /dev/null for the block. The profiler's
    Kineto library logs every start and stop there ("USDT: ... profiler_start"), whatever its log
    level, and a notebook shows each of those lines as an error. Python's own sys.stderr (a
    notebook's stream, or a grading child's pipe) is untouched when it is not that descriptor."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        sys.stderr.flush()
        with open(os.devnull, "w") as sink:
            os.dup2(sink.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


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

    with _native_stderr_closed(), profile() as prof:
        for _ in range(rounds):
            for args in calls:
                driver(compiled, *args) if driver is not None else compiled(*args)
    # The raw Kineto events, not prof.events(): building the Python event tree costs ~1 s per pass
    # of a 32-layer schedule here (thousands of op events), the raw list ~0.01 s, same durations.
    times = [e.duration_ns() / 1000 for e in prof.profiler.kineto_results.events() if e.name() == "TorchDynamo Cache Lookup"]
    if not times:
        return float("nan")
    return statistics.median(times) if statistic == "median" else statistics.fmean(times)

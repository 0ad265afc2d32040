"""Observability (chapter 7): the structured trace, compilations read from it, recompile logs, captured graphs and guard names."""

from __future__ import annotations

import contextlib
import json
import logging
import re
from dataclasses import dataclass

import torch
import torch._dynamo
import torch._dynamo.exc
from .events import _guard_lines, recompile_reasons
from .measurement import compile_for_grading
from .state import clean_state
from .tally import GraphTally, _TORCH_DIR


# -- observability and reporting issues (chapters 7 and 8) --------------------------------------
#
# What TORCH_TRACE writes is the stream of the "torch.__trace" logger: one record per event, a JSON
# header (with frame_id, frame_compile_id, attempt) and an optional payload. ``structured_trace``
# listens to that stream in this process, so a master can produce the same trace the learner reads
# with tlparse, without a second process; ``read_trace`` parses a TORCH_TRACE file. Each
# ``compilation_metrics`` record describes one compile: function, compile id, ops, seconds, the
# guard that made it a recompile.

TORCH_DIR = _TORCH_DIR


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

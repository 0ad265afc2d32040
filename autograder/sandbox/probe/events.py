"""Records of what Dynamo did while a block ran: each graph break it handled, each frame it gave up on, each recompile and the guard that failed."""

from __future__ import annotations

import contextlib
import logging
import re

import torch
import torch._dynamo
import torch._dynamo.exc
from .tally import _RECOMPILE_LOGGER, _break_type, _first_paragraphs, _is_user_file, _site


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

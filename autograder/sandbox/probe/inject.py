"""Probes that change what Dynamo sees, never the learner's code: a graph break added at one call
site of one function, and the functions a program put into graphs with ``allow_in_graph``.

``added_break(code, site)`` makes Dynamo, while it traces the frame of ``code``, meet a
``torch._dynamo.graph_break()`` just before the call site ``site`` (a key from a run that only
recorded the sites). A site is a call in ``code`` *and* the call of ``code`` it is traced for: a
helper called twice has each of its calls probed on its own, so a strict setting that covers one
call of it and not the other shows. The function keeps its own code, globals, decorators and
``with`` blocks: whatever strict setting (``error_on_graph_break``) is in effect at that call
decides, as it would for a break someone later writes there. ``code`` is found by identity (the
code objects compiled from the learner's file), never by name or file name.
"""

from __future__ import annotations

import contextlib

import torch
import torch._dynamo


def _sets_strictness(fn) -> bool:
    """A call that only sets up a strict setting (``error_on_graph_break(...)``, a ``with`` block's
    enter or exit): a break placed there is no break in the function's work."""
    if "WithExit" in type(fn).__name__ or "WithEnter" in type(fn).__name__:
        return True
    try:
        peek = getattr(type(fn), "peek_value", None)  # a lazy tracker: look without realizing (no guards added)
        value = peek(fn) if peek is not None and not fn.is_realized() else getattr(fn, "value", None)
    except Exception:  # noqa: BLE001 - a tracker that cannot say: count it as work
        return False
    return value is torch._dynamo.error_on_graph_break


def _caller(translator) -> tuple | None:
    """Where the traced frame was called from: the calling function's file, name and first line, and
    the call's offset and line there (names, not identities: a resume function Dynamo makes again after
    a reset has the same ones). None for a frame Dynamo started on (no caller traced)."""
    parent = getattr(translator, "parent", None)
    if parent is None:
        return None
    code = getattr(parent, "f_code", None)
    instruction = getattr(parent, "current_instruction", None)
    positions = getattr(instruction, "positions", None)
    return (getattr(code, "co_filename", None), getattr(code, "co_name", None), getattr(code, "co_firstlineno", None),
            getattr(instruction, "offset", None), getattr(positions, "lineno", None) or getattr(instruction, "starts_line", None))


@contextlib.contextmanager
def added_break(code, site: tuple | None):
    """While the block runs, a graph break before the *work* call ``site`` Dynamo traces in the
    frame of ``code`` (``None``: no break, only record the sites). Yields a dict with ``sites`` (each
    work call site seen, in the order Dynamo first traced it: a tuple of where ``code`` was called
    from (the caller's file, function name, first line, offset and line; None for a frame Dynamo
    started on) and the call's offset and line in ``code``) and ``placed`` (the site that got the break,
    once it did)."""
    from torch._dynamo.symbolic_convert import InstructionTranslatorBase
    from torch._dynamo.variables.builder import SourcelessBuilder

    original = InstructionTranslatorBase.call_function
    record: dict = {"sites": [], "placed": None}

    def call_function(self, fn, args, kwargs):
        if getattr(self, "f_code", None) is code and not _sets_strictness(fn):
            instruction = getattr(self, "current_instruction", None)
            positions = getattr(instruction, "positions", None)
            where = (_caller(self), getattr(instruction, "offset", None),
                     getattr(positions, "lineno", None) or getattr(instruction, "starts_line", None))
            if where not in record["sites"]:
                record["sites"].append(where)
            # The site's own call, and the same call site reached in a frame Dynamo started on
            # (no caller traced): what a call that fell back to running the helper eagerly (after
            # a tolerated break, or through a compiled wrapper of its own) traces next. A real edit
            # of the helper would be there too.
            if site is not None and (where == site or (where[0] is None and where[1:] == site[1:])):
                record["placed"] = where
                # The very call torch._dynamo.graph_break() is traced as: the same break type and handling.
                original(self, SourcelessBuilder.create(self, torch._dynamo.graph_break), [], {})
        return original(self, fn, args, kwargs)

    InstructionTranslatorBase.call_function = call_function
    try:
        yield record
    finally:
        InstructionTranslatorBase.call_function = original


def allowed_in_graph_ids() -> set[int]:
    """The ids of every callable marked with ``allow_in_graph`` (nonstrict_trace ones excluded: they are traced)."""
    from torch._dynamo import trace_rules

    allowed = set(trace_rules._allowed_callable_ids())
    return allowed - set(trace_rules._nonstrict_trace_callable_ids())


def is_disabled(value) -> bool:
    """Whether ``value`` is a function wrapped by ``torch.compiler.disable``, read without calling anything on it."""
    import inspect

    try:
        return bool(inspect.getattr_static(value, "_torchdynamo_disable", False))
    except Exception:  # noqa: BLE001
        return False

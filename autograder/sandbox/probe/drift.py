"""Drift alarms: the facts about the installed torch that the lessons rely on and a release may change.

A lesson asserts what holds across torch releases (a break's registry id, the kind of a guard, a
count that follows from the code). Some facts cannot be put that way: a default value, a count that
depends on how Dynamo is built today, an internal name the lesson shows, a known Dynamo bug that a
lesson demonstrates. Each such fact is an *alarm*, defined once here:

- its name, a sentence stating the fact ("nested graph breaks are off by default");
- what it expects;
- a function that observes the installed torch, on its own (no lesson needed);
- the lesson sections that rely on it.

A lesson cell calls ``drift(name)`` (or ``drift(name, observed)`` with what the cell itself measured),
and gets ``TorchChanged: torch changed: <name>: expected ..., observed ...`` when the fact no longer
holds: news about torch, not a bug in the lesson, and a pointer to the sections to revisit.
``python -m autograder drift`` runs every alarm (``check_all``).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch._dynamo
import torch._dynamo.exc

_MISSING = object()


class TorchChanged(AssertionError):
    """A drift alarm went off: the installed torch no longer does what a lesson says it does."""


@dataclass(frozen=True)
class Alarm:
    name: str
    expects: Any
    observe: Callable[[], Any]
    sections: tuple  # lesson sections that state or use this fact
    costly: bool = False  # runs Inductor (seconds); everything else is Dynamo with cheap backends

    def message(self, observed) -> str:
        return (f"torch changed: {self.name}: expected {self.expects!r}, observed {observed!r} "
                f"(torch {torch.__version__}). Revisit lesson section(s) {', '.join(self.sections)}.")


ALARMS: dict[str, Alarm] = {}


def alarm(name: str, expects, *sections: str, costly: bool = False):
    """Register the decorated function as the observation of the alarm ``name``."""
    def register(observe):
        if name in ALARMS:
            raise ValueError(f"drift alarm {name!r} is defined twice")
        ALARMS[name] = Alarm(name, expects, observe, sections, costly)
        return observe
    return register


def drift(name: str, observed=_MISSING):
    """Check the alarm ``name``: with ``observed`` (what a lesson cell measured itself) against what it
    expects, else by running its own observation. Returns the observed value; raises TorchChanged."""
    try:
        entry = ALARMS[name]
    except KeyError:
        raise KeyError(f"no drift alarm named {name!r}; the alarms are defined in autograder/sandbox/probe/drift.py") from None
    if observed is _MISSING:
        observed = _observe(entry)
    if observed != entry.expects:
        raise TorchChanged(entry.message(observed))
    return observed


@dataclass
class Reading:
    alarm: Alarm
    observed: Any
    holds: bool
    error: str = ""


def check_all(names=None, costly: bool = True) -> list[Reading]:
    """Run every alarm (or those named) on the installed torch, each from a clean state."""
    readings = []
    for entry in ALARMS.values():
        if (names and entry.name not in names) or (entry.costly and not costly):
            continue
        try:
            observed = _observe(entry)
            readings.append(Reading(entry, observed, observed == entry.expects))
        except Exception as exc:  # noqa: BLE001 - an observation that breaks is a change too
            readings.append(Reading(entry, None, False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))
    return readings


def _observe(entry: Alarm):
    from .state import clean_state

    clean_state()
    try:
        with _quiet_dynamo():
            return entry.observe()
    finally:
        clean_state()


@contextlib.contextmanager
def _quiet_dynamo():
    """Observations compile on purpose things that break, recompile or warn: keep that off the screen."""
    names = ["torch._dynamo", "torch.fx.experimental.symbolic_shapes", "torch._guards", "torch._subclasses.fake_tensor",
             "torch._inductor"]
    loggers = [logging.getLogger(n) for n in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


# -- helpers for observations ---------------------------------------------------------------------

def _graphs(fn, calls, **options) -> int:
    from .counts import tally_calls

    return tally_calls(fn, calls, **options).graphs


def _raises(fn, *args, backend="eager", **options) -> str | None:
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend=backend, **options)(*args)
    except Exception as exc:  # noqa: BLE001 - the type is the observation
        return type(exc).__name__
    return None


def _default(key: str):
    from .state import config_defaults

    return config_defaults([key]).get(key, "<no such key>")


# ==================================================================================================
# The alarms, by lesson. Each name states the fact as the lesson teaches it.
# ==================================================================================================

# -- defaults ---------------------------------------------------------------------------------------

@alarm("the recompile limit is 8 compiled entries per function", 8, "1.4", "2.5.5.4", "4.4")
def _():
    return _default("recompile_limit")


@alarm("the accumulated recompile limit is 256", 256, "4.4")
def _():
    return _default("accumulated_recompile_limit")


@alarm("nested graph breaks are off by default", False, "2.5.4", "2.5.3.1", "2.5.3.5")
def _():
    return _default("nested_graph_breaks")


@alarm("use_recursive_dict_tags_for_guards is off by default", False, "6.3")
def _():
    return _default("use_recursive_dict_tags_for_guards")


@alarm("install_free_tensors is off by default", False, "6.1")
def _():
    return _default("install_free_tensors")


@alarm("floats are not specialized: specialize_float is off by default", False, "4.2", "5.1")
def _():
    return _default("specialize_float")


@alarm("capture_scalar_outputs is off by default", False, "1.2", "2.2.2", "2.2.2.1")
def _():
    return _default("capture_scalar_outputs")


@alarm("parameter shapes stay static under dynamic=True", (True, True), "1.5")
def _():
    return (_default("force_parameter_static_shapes"), _default("force_nn_module_property_static_shapes"))


@alarm("hooks, parameter aliasing and dict-tagged tensors are not guarded by default", (True, True, True), "1.3.2", "6.2")
def _():
    return (_default("skip_nnmodule_hook_guards"), _default("skip_no_tensor_aliasing_guards_on_parameters"),
            _default("skip_tensor_guards_with_matching_dict_tags"))


@alarm("recursive dict tags assume function dunders are never rebound", True, "6.3")
def _():
    return _default("assume_dunder_attributes_remain_unchanged")


@alarm("TORCHDYNAMO_REPRO_LEVEL is 2 by default", 2, "8.3")
def _():
    return _default("repro_level")


# -- where things live ------------------------------------------------------------------------------

@alarm("error_on_graph_break lives in torch._dynamo only",
       {"torch._dynamo.error_on_graph_break": True, "torch.compiler.error_on_graph_break": False,
        "torch._dynamo.set_fullgraph": False, "torch.compiler.set_fullgraph": False}, "2.5.3")
def _():
    return {"torch._dynamo.error_on_graph_break": hasattr(torch._dynamo, "error_on_graph_break"),
            "torch.compiler.error_on_graph_break": hasattr(torch.compiler, "error_on_graph_break"),
            "torch._dynamo.set_fullgraph": hasattr(torch._dynamo, "set_fullgraph"),
            "torch.compiler.set_fullgraph": hasattr(torch.compiler, "set_fullgraph")}


@alarm("nonstrict_trace lives in torch._dynamo, not torch.compiler", (True, False), "2.3")
def _():
    return (hasattr(torch._dynamo, "nonstrict_trace"), hasattr(torch.compiler, "nonstrict_trace"))


@alarm("mark_unbacked lives in torch._dynamo.decorators only", (True, False), "4.1.2")
def _():
    import torch._dynamo.decorators as decorators

    return (hasattr(decorators, "mark_unbacked"), hasattr(torch._dynamo, "mark_unbacked"))


@alarm("torch.compiler ships six guard-filter presets",
       ["keep_portable_guards_unsafe", "keep_tensor_guards_unsafe", "skip_all_guards_unsafe",
        "skip_guard_on_all_nn_modules_unsafe", "skip_guard_on_globals_unsafe", "skip_guard_on_inbuilt_nn_modules_unsafe"],
       "6.2")
def _():
    return sorted(name for name in dir(torch.compiler) if name.endswith("_unsafe") and name.startswith(("keep_", "skip_")))

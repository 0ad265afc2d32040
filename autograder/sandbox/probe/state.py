"""Dynamo's global state as the grader sees it: the entry points compiling relies on, a clean start, the stance, the config and its changes, custom operators."""

from __future__ import annotations

import contextlib
import copy
import sys

import torch
import torch._dynamo
import torch._dynamo.exc
from torch._dynamo.utils import counters


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


def skip_guard_latency_profiling() -> None:
    """Make Dynamo stop timing each new guard set. After every compile, torch 2.13 evaluates the
    guards once after flushing the CPU's caches, for a metric (``guard_latency_us``) and a debug
    log line that no grading reads: about 25 ms per compile here, some 8% of the course's grading
    time. The guards are still built, checked against the frame and used as before."""
    import torch._dynamo.guards as guards

    guards.profile_guard_manager = _no_guard_latency


def _no_guard_latency(root, scope, iterations) -> float:
    return 0.0


def stance() -> str:
    current = torch._dynamo.eval_frame._stance
    return f"{current.stance}" + (", skip_guard_eval_unsafe" if current.skip_guard_eval_unsafe else "")


def stance_object():
    """The compiler stance in effect, as the object Dynamo keeps (compared by value)."""
    return torch._dynamo.eval_frame._stance


def put_stance_object(stance) -> None:
    """Put ``stance`` (from stance_object) in effect, outside any compiled region."""
    torch._dynamo.eval_frame._set_stance(stance)


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


@contextlib.contextmanager
def config_as(snapshot: dict):
    """``torch._dynamo.config`` as it was in ``snapshot`` (a ``config_snapshot()``) for the block, and as
    it is now afterwards: a probe that compiles again starts from the settings the learner's file
    made, not from what an earlier run of the learner's code set on the way."""
    back = {key: copy.copy(snapshot[key]) for key in config_changes(snapshot) if key in snapshot}
    with torch._dynamo.config.patch(**back):
        yield


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



@contextlib.contextmanager
def dynamo_config(values: dict):
    """Patch ``torch._dynamo.config`` keys for the block (e.g. back to their defaults for a baseline)."""
    with torch._dynamo.config.patch(**values):
        yield


def config_defaults(keys) -> dict:
    """The default value of each ``torch._dynamo.config`` key."""
    defaults = torch._dynamo.config._config
    return {key: copy.copy(defaults[key].default) for key in keys if key in defaults}



def refresh_decompositions() -> None:
    """Inductor copies its decomposition table the first time a backend asks for it; forget that copy, so
    that decompositions registered since (a course's planted bug, say) are seen by the next compile."""
    from torch._inductor import decomposition

    decomposition.fast_random_decomps.cache_clear()


def print_is_reorderable() -> bool:
    """Whether ``print`` is in ``torch._dynamo.config.reorderable_logging_functions`` (moved after the graph)."""
    try:
        return print in torch._dynamo.config.reorderable_logging_functions
    except TypeError:
        return False


def recompile_limit() -> object:
    """``torch._dynamo.config.recompile_limit`` as it is now."""
    return torch._dynamo.config.recompile_limit


def config_values(keys) -> dict:
    """The current values of some ``torch._dynamo.config`` keys (missing keys are left out)."""
    current = torch._dynamo.config.get_config_copy()
    return {key: current[key] for key in keys if key in current}


def private_compile_caches() -> bool:
    """Inductor in a grading's own, empty cache folder. Its precompiled header is the grader's
    prebuilt one where the warm worker made it (``kernel_headers``), else none: a grading's own would
    be rebuilt for every grading (and is larger than a grading may write). Returns whether it is used."""
    import torch._inductor.config as inductor_config

    from autograder.sandbox import kernel_headers

    inductor_config.cpp_cache_precompile_headers = kernel_headers.use_prebuilt()
    return inductor_config.cpp_cache_precompile_headers

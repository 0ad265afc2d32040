"""Process-wide torch state that eager code reads on every call, as it was before the submission ran.

The grader runs code of its own in the learner's process: the starting file that a timing compares
the fix with (``speed`` against the starter, compiled or eager; ``compile_time``; ``guard_time``).
Whatever process-wide state the submission leaves behind would run inside that code too: a global
module hook (``register_module_forward_pre_hook``) that sleeps only in the starting file's modules,
a ``TorchFunctionMode`` left entered (``torch.set_default_device`` enters one) that costs every eager
torch call some Python while compiled code pays nothing, another default dtype, a compiler stance
that skips guards or runs eagerly. Each would slow the
side the fix is compared with and buy a ratio the fix never earned.

``capture()`` records that state before the first line of learner code; ``as_captured(snapshot)``
puts it in place around a run of the grader's side and then gives the submission's state back, so
the fix still runs under whatever its file set (its own business), and nothing a fix may fairly do
is refused. What it covers is listed in ``_SETTINGS`` and ``_hook_tables``; the static policy
already refuses assignments to torch's attributes (``torch.backends.*`` flags, patched operators).
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field


def _hook_tables() -> list[dict]:
    """torch.nn's process-wide module hooks, one dict per kind (forward pre-hooks, forward hooks, ...)."""
    hooks = sys.modules.get("torch.nn.modules.module")
    if hooks is None:
        return []
    return [table for name, table in sorted(vars(hooks).items()) if name.startswith("_global_") and isinstance(table, dict)]


def _settings(torch) -> list[tuple]:
    """(name, read, put) of each plain setting: read() -> value, put(value)."""
    from autograder.sandbox.probe.state import put_stance_object, stance_object

    return [
        ("the default dtype", torch.get_default_dtype, torch.set_default_dtype),
        ("deterministic algorithms", lambda: (torch.are_deterministic_algorithms_enabled(),
                                              torch.is_deterministic_algorithms_warn_only_enabled()),
         lambda value: torch.use_deterministic_algorithms(value[0], warn_only=value[1])),
        ("anomaly detection", lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
         lambda value: torch.set_anomaly_enabled(*value)),
        # A stance left by the fix (skip_guard_eval_unsafe after its serving calls, which lesson 6.4
        # allows) would skip the starting file's guards too, or run it eagerly.
        ("the compiler stance", stance_object, put_stance_object),
    ]


@dataclass
class Snapshot:
    function_modes: int = 0
    dispatch_modes: int = 0
    hooks: list = field(default_factory=list)  # (table, its entries then)
    settings: list = field(default_factory=list)  # (name, read, put, value then)


def capture() -> Snapshot:
    torch = sys.modules.get("torch")
    if torch is None:
        return Snapshot()
    from torch.utils import _python_dispatch

    return Snapshot(function_modes=torch._C._len_torch_function_stack(),
                    dispatch_modes=_python_dispatch._len_torch_dispatch_stack(),
                    hooks=[(table, dict(table)) for table in _hook_tables()],
                    settings=[(name, read, put, read()) for name, read, put in _settings(torch)])


def differences(snapshot: Snapshot) -> list[str]:
    """What differs now from ``snapshot``, in words (for tests and diagnostics)."""
    now = capture()
    found = []
    if now.function_modes != snapshot.function_modes:
        found.append(f"torch function modes in effect: {snapshot.function_modes} -> {now.function_modes}")
    if now.dispatch_modes != snapshot.dispatch_modes:
        found.append(f"torch dispatch modes in effect: {snapshot.dispatch_modes} -> {now.dispatch_modes}")
    found += [f"global module hooks: {len(then)} -> {len(table)}" for table, then in snapshot.hooks if table != then]
    found += [f"{name}: {value!r} -> {read()!r}" for name, read, _, value in snapshot.settings if read() != value]
    return found


@contextlib.contextmanager
def as_captured(snapshot: Snapshot | None):
    """Run the body under the state of ``snapshot``, then put the state found on entry back."""
    torch = sys.modules.get("torch")
    if snapshot is None or torch is None:
        yield
        return
    from torch.utils import _python_dispatch

    # Modes first: a mode left in effect would run inside every read and put below.
    function_modes = [torch._C._pop_torch_function_stack()
                      for _ in range(max(torch._C._len_torch_function_stack() - snapshot.function_modes, 0))]
    dispatch_modes = [_python_dispatch._pop_mode()
                      for _ in range(max(_python_dispatch._len_torch_dispatch_stack() - snapshot.dispatch_modes, 0))]
    hooks = [(table, dict(table)) for table, _ in snapshot.hooks]
    settings = [(put, read()) for _, read, put, _ in snapshot.settings]
    try:
        for table, then in snapshot.hooks:
            table.clear()
            table.update(then)
        for _, _, put, then in snapshot.settings:
            put(then)
        yield
    finally:
        for put, value in settings:
            put(value)
        for table, entries in hooks:
            table.clear()
            table.update(entries)
        for mode in reversed(dispatch_modes):
            _python_dispatch._push_mode(mode)
        for mode in reversed(function_modes):
            torch._C._push_on_torch_function_stack(mode)

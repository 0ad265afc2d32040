"""Notice when a submission changes what the measurement relies on, in the learner's own process.

The verdict is the judge's (``engine/judge.py``, a process that never runs learner code); this
watch only keeps the *measurement* honest. ``Watch.capture`` records, before the submission's code
runs, every callable bound in a list of namespaces (whole modules: the sandbox's own, the parts of
torch that compile and count, ``builtins``, ``time``; and the classes defined there) and, for
each Python function among them, its code, defaults and closure. ``sys.modules`` entries of those
packages are recorded too. ``violations`` names each binding that now holds another object, each
function whose code, defaults or closure was swapped (``f.__code__ = ...`` keeps the function's
identity), and each replaced module, and puts the original back, so that the rest of the
measurement still counts honestly while the judge fails the grade.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field

# Whole namespaces the measurement relies on (what the probe calls, and Dynamo's machinery it hooks).
_WATCHED_MODULES = ("builtins", "time", "copy", "logging", "torch.compiler", "torch.library", "torch._dynamo",
                    "torch._dynamo.eval_frame", "torch._dynamo.convert_frame", "torch._dynamo.symbolic_convert",
                    "torch._dynamo.decorators", "torch._dynamo.trace_rules", "torch._guards", "torch.fx.experimental.proxy_tensor")
# From torch's own namespace (thousands of operators a submission may shadow only for its own results), what measuring uses.
_TORCH_NAMES = ("compile", "manual_seed", "no_grad", "save", "load", "allclose", "equal", "Generator", "Tensor", "fx", "library",
                "compiler", "_dynamo", "ops", "profiler", "cuda", "set_num_threads", "get_num_threads", "is_grad_enabled")


def _callable_kind(value) -> bool:
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType,
                              staticmethod, classmethod, property, types.MethodDescriptorType, types.WrapperDescriptorType))


def _cells(closure) -> tuple:
    contents = []
    for cell in closure or ():
        try:
            contents.append(cell.cell_contents)
        except ValueError:  # an empty cell
            contents.append(_EMPTY)
    return tuple(contents)


_EMPTY = object()


def _function_state(value):
    function = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
    if isinstance(function, types.FunctionType):
        return (function, function.__code__, function.__defaults__, function.__kwdefaults__, _cells(function.__closure__))
    return None


def _namespace(owner):
    """The live namespace of a module or a class (a class's is read-only: restored through setattr)."""
    return type.__dict__["__dict__"].__get__(owner) if isinstance(owner, type) else owner.__dict__


@dataclass
class Watch:
    bindings: list = field(default_factory=list)  # (label, owner, name, value): owner a module or a class
    functions: list = field(default_factory=list)  # (label, function, code, defaults, kwdefaults, closure contents)
    modules: dict = field(default_factory=dict)  # sys.modules name -> module
    tables: list = field(default_factory=list)  # (label, dict, a copy): registries whose entries must stay

    @classmethod
    def capture(cls, extra_modules=()) -> "Watch":
        """Record the namespaces of ``_WATCHED_MODULES`` that are imported, every ``autograder.sandbox``
        and ``autograder.format`` module, and ``extra_modules``."""
        watch = cls()
        names = [name for name in _WATCHED_MODULES if name in sys.modules]
        names += [name for name in list(sys.modules) if name.startswith(("autograder.sandbox", "autograder.format"))]
        seen: set[int] = set()
        for module in [sys.modules[name] for name in dict.fromkeys(names)] + list(extra_modules):
            watch._record(module.__name__, module, module.__name__, seen)
        torch = sys.modules.get("torch")
        if torch is not None:
            for name in _TORCH_NAMES:
                if name in torch.__dict__:
                    watch.bindings.append((f"torch.{name}", torch, name, torch.__dict__[name]))
        watch.modules = {name: sys.modules[name] for name in list(sys.modules)
                         if name.startswith("autograder.") or name in names or name == "torch"}
        kinds = sys.modules.get("autograder.sandbox.kinds")
        if kinds is not None:
            watch.tables = [(f"the grader's table of {label}", table, dict(table))
                            for label, table in (("measures", kinds.MEASURERS), ("reference parts", kinds.REFERENCES))]
        return watch

    def _record(self, label: str, owner, module_name: str, seen: set) -> None:
        for name, value in list(_namespace(owner).items()):
            if not _callable_kind(value):
                continue
            self.bindings.append((f"{label}.{name}", owner, name, value))
            state = _function_state(value)
            if state is not None and id(state[0]) not in seen:
                seen.add(id(state[0]))
                self.functions.append((f"{label}.{name}", *state))
            # A class defined in this module: its methods too (a tally's __call__, a translator's call_function).
            if not isinstance(owner, type) and isinstance(value, type) and value.__dict__.get("__module__") == module_name:
                self._record(f"{label}.{name}", value, module_name, seen)

    def violations(self) -> list[str]:
        """What changed since ``capture``, each put back."""
        found = []
        for label, owner, name, original in self.bindings:
            current = _namespace(owner).get(name, original)
            if current is not original:
                found.append(f"{label} was replaced; the grade cannot trust a run where it is patched")
                if isinstance(owner, type):
                    type.__setattr__(owner, name, original)
                else:
                    owner.__dict__[name] = original
        for label, function, code, defaults, kwdefaults, cells in self.functions:
            if function.__code__ is not code or function.__defaults__ is not defaults or function.__kwdefaults__ is not kwdefaults:
                found.append(f"the code of {label} was swapped; the grade cannot trust a run where it is patched")
                function.__code__, function.__defaults__, function.__kwdefaults__ = code, defaults, kwdefaults
            now = _cells(function.__closure__)
            if len(now) != len(cells) or any(a is not b for a, b in zip(now, cells)):
                found.append(f"what {label} closes over was changed; the grade cannot trust a run where it is patched")
                for cell, value in zip(function.__closure__ or (), cells):
                    if value is not _EMPTY:
                        cell.cell_contents = value
        for label, table, saved in self.tables:
            if len(table) != len(saved) or any(table.get(key) is not value for key, value in saved.items()):
                found.append(f"{label} was modified; the grade cannot trust a run where it is patched")
                table.clear()
                table.update(saved)
        for name, module in self.modules.items():
            if sys.modules.get(name, module) is not module:
                found.append(f"sys.modules[{name!r}] was replaced; the grade cannot trust a run where it is patched")
                sys.modules[name] = module
        return found


_prepared: Watch | None = None


def prepare() -> None:
    """Capture the watch now, in a process that forks gradings (the warm worker, a judge) once every
    module is imported: a forked learner child inherits it, the same objects at the same addresses,
    without walking thousands of namespaces again (which, after a fork, costs copies of memory pages)."""
    global _prepared
    _prepared = Watch.capture()


def watch() -> Watch:
    """The watch prepared before this process was forked, or one captured now."""
    return _prepared if _prepared is not None else Watch.capture()

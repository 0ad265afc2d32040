"""Turn what a program returned into plain data the judge can compare without calling any of it.

Plain data is builtin scalars and strings, lists, tuples, dicts with string or integer keys, and
tensors of torch's own class (a subclass becomes a plain tensor of the same values). Anything else
becomes a marker ``{"__object__": "TypeName"}``, which equals nothing a reference produces; the
type name comes from ``type()``, never from the object. Runs where the value was made (the
reference child, the learner child), so that only plain data crosses to the judge.
"""

from __future__ import annotations

import math

OBJECT = "__object__"  # marker key: a value that is not plain data
MAX_DEPTH = 12
MAX_ITEMS = 100_000
MAX_TEXT = 1 << 20


class _Budget:
    def __init__(self):
        self.items = 0


def _type_name(value) -> str:
    kind = type(value)
    return str(type.__dict__["__name__"].__get__(kind))[:80]  # the class's own name; a metaclass cannot answer for it


def object_marker(value) -> dict:
    return {OBJECT: _type_name(value)}


def to_plain(value, depth: int = 0, budget: _Budget | None = None):
    """``value`` as plain data (see the module docstring); tensors are detached copies."""
    import torch

    budget = budget or _Budget()
    budget.items += 1
    if depth > MAX_DEPTH or budget.items > MAX_ITEMS:
        return {OBJECT: "too deep or too large"}
    kind = type(value)  # the real class: isinstance() would ask the object's own __class__
    if value is None or kind is bool:
        return value
    try:
        if issubclass(kind, int) and not issubclass(kind, bool):
            return int.__index__(value)
        if issubclass(kind, float):
            return float.__float__(value)
        if issubclass(kind, str):
            return str.__str__(value)[:MAX_TEXT]
        if issubclass(kind, torch.Tensor):
            plain = torch.Tensor.as_subclass(value, torch.Tensor) if kind is not torch.Tensor else value
            if plain.layout != torch.strided or plain.is_quantized or plain.device.type == "meta":
                return object_marker(value)
            return plain.detach().to("cpu").clone().contiguous()
        if kind is torch.Size:
            return tuple(int(n) for n in tuple.__iter__(value))
        if kind in (torch.dtype, torch.device):
            return str(value)
        if kind is complex:
            return {OBJECT: "complex", "real": value.real, "imag": value.imag}
        if issubclass(kind, (list, tuple)):
            items = list.__iter__(value) if issubclass(kind, list) else tuple.__iter__(value)
            converted = [to_plain(item, depth + 1, budget) for item in items]
            return converted if issubclass(kind, list) else tuple(converted)
        if issubclass(kind, dict):
            plain = {}
            for key, item in dict.items(value):
                key_kind = type(key)
                if issubclass(key_kind, str):
                    key = str.__str__(key)
                elif issubclass(key_kind, int) and not issubclass(key_kind, bool):
                    key = int.__index__(key)
                else:
                    key = f"<{_type_name(key)} key>"
                plain[key] = to_plain(item, depth + 1, budget)
            return plain
    except Exception:  # noqa: BLE001 - something the learner made that only looks like plain data
        return object_marker(value)
    return object_marker(value)


def finite_or_none(value: float | None) -> float | None:
    return value if isinstance(value, float) and math.isfinite(value) else None


FINGERPRINT_PICKS = 16  # values read at evenly spaced positions of each tensor
_HUGE = 1e300  # infinities stand in as this: the facts' numbers are finite


def fingerprint(plain) -> list[dict]:
    """A few numbers per leaf of a plain value (``to_plain``'s result), enough to tell another
    computation from the same one without sending the value itself: per tensor its shape, dtype, the
    sum, the sum of absolute values, the count of NaNs and ``FINGERPRINT_PICKS`` values at evenly
    spaced positions; per number its value. Compared by the judge (``checks.core.fingerprints_differ``)
    where outputs too large to cross (the speed kind's own inputs) must still be the reference's."""
    import torch

    leaves: list[dict] = []

    def finite(x: float) -> float:
        return 0.0 if math.isnan(x) else max(-_HUGE, min(_HUGE, x))

    def walk(value, depth: int = 0):
        if depth > MAX_DEPTH or len(leaves) >= 256:
            leaves.append({"type": "too deep or too large"})
        elif isinstance(value, torch.Tensor):
            flat = (torch.view_as_real(value) if value.is_complex() else value).reshape(-1).double()
            nans = int(torch.isnan(flat).sum())
            flat = torch.nan_to_num(flat, nan=0.0, posinf=_HUGE, neginf=-_HUGE)
            count = flat.numel()
            picks = [finite(float(flat[i * count // FINGERPRINT_PICKS])) for i in range(FINGERPRINT_PICKS)] if count else []
            leaves.append({"shape": [int(n) for n in value.shape], "dtype": str(value.dtype), "sum": finite(float(flat.sum())),
                           "abs": finite(float(flat.abs().sum())), "nans": nans, "picks": picks})
        elif isinstance(value, bool) or value is None:
            leaves.append({"value": float(bool(value)), "type": type(value).__name__})
        elif isinstance(value, (int, float)):
            leaves.append({"value": finite(float(value))})
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict) and OBJECT not in value:
            for key in sorted(value, key=str):
                walk(value[key], depth + 1)
        else:
            leaves.append({"type": str(value.get(OBJECT, "?"))[:100] if isinstance(value, dict) else type(value).__name__})

    walk(plain)
    return leaves


# -- functions of the exercise's own file, in the grader's inputs -----------------------------------
# A schedule may hand the learner's code functions the exercise's file defines (the monitors a caller
# passes). A function cannot cross as plain data, so the reference child sends its name, and the
# learner child puts the learner's own function of that name in its place: the learner's code is
# called with the file's code, never with the master's.

FUNCTION = "__course_function__"  # marker key: a function of the exercise's file, by name


def _replace(value, replacement, memo: dict, depth: int = 0):
    """``value`` with ``replacement(item)`` (not None) put in for items; a container in which nothing
    changed is returned itself, and one reached twice is rebuilt once, so the schedule's aliasing
    (the same list handed to every call) is kept."""
    new = replacement(value)
    if new is not None:
        return new
    if depth > MAX_DEPTH or not isinstance(value, (list, tuple, dict)) or (isinstance(value, dict) and type(value) is not dict):
        return value
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, dict):
        items = {key: _replace(item, replacement, memo, depth + 1) for key, item in value.items()}
        changed = any(items[key] is not item for key, item in value.items())
    else:
        items = [_replace(item, replacement, memo, depth + 1) for item in value]
        changed = any(a is not b for a, b in zip(items, value))
        if changed and isinstance(value, tuple):
            items = type(value)(items) if type(value) is tuple else type(value)(*items)
    result = items if changed else value
    memo[id(value)] = result
    return result


def name_file_functions(value, module):
    """``value`` with every top-level function of ``module`` (the master) replaced by its marker."""
    import types

    def marker(item):
        if isinstance(item, types.FunctionType) and item.__module__ == module.__name__ and module.__dict__.get(item.__name__) is item:
            return {FUNCTION: item.__name__}
        return None

    return _replace(value, marker, {})


def _is_marker(value) -> bool:
    return type(value) is dict and len(value) == 1 and FUNCTION in value


def file_functions_named(value) -> set[str]:
    """The names of the markers in ``value``."""
    found: set[str] = set()

    def note(item):
        if _is_marker(item):
            found.add(str(item[FUNCTION]))
            return item
        return None

    _replace(value, note, {})
    return found


def with_file_functions(value, functions: dict):
    """``value`` with every marker replaced by ``functions[name]`` (the learner's own functions)."""
    return _replace(value, lambda item: functions[str(item[FUNCTION])] if _is_marker(item) else None, {})

"""Strict shapes for what a learner's process sends: the judge accepts nothing else.

A schema is built from the helpers below and applied with ``validate(value, schema)``, which raises
``Invalid`` (with the path of the first problem) unless ``value`` has exactly that shape: exact
builtin types (``bool`` is no ``int``), records with exactly the known keys, sizes capped, tensors
of torch's own class only. Nothing here calls a method of the value: types are compared with
``type(...) is``, containers are walked with the builtin types' own functions.
"""

from __future__ import annotations

import math


class Invalid(Exception):
    """The data does not have the shape the judge accepts."""


MAX_TEXT = 1 << 20
MAX_ITEMS = 100_000
MAX_DEPTH = 16


class _Schema:
    def check(self, value, path: str, depth: int) -> None:  # pragma: no cover - every schema overrides it
        raise NotImplementedError


def _fail(path: str, what: str):
    raise Invalid(f"{path}: {what}")


class Text(_Schema):
    def __init__(self, max_len: int = 20_000):
        self.max_len = max_len

    def check(self, value, path, depth):
        if type(value) is not str:
            _fail(path, f"expected text, got {type(value).__name__}")
        if len(value) > self.max_len:
            _fail(path, f"text longer than {self.max_len}")


class Int(_Schema):
    def __init__(self, low: int = -(2**62), high: int = 2**62):
        self.low, self.high = low, high

    def check(self, value, path, depth):
        if type(value) is not int:
            _fail(path, f"expected a whole number, got {type(value).__name__}")
        if not self.low <= value <= self.high:
            _fail(path, f"{value} is outside [{self.low}, {self.high}]")


class Float(_Schema):
    """A float or an int (a count of seconds may be whole); NaN allowed (a profile with no events), infinity not."""

    def check(self, value, path, depth):
        if type(value) not in (float, int):
            _fail(path, f"expected a number, got {type(value).__name__}")
        if type(value) is float and math.isinf(value):
            _fail(path, "an infinite number")


class Bool(_Schema):
    def check(self, value, path, depth):
        if type(value) is not bool:
            _fail(path, f"expected true or false, got {type(value).__name__}")


class Nothing(_Schema):
    def check(self, value, path, depth):
        if value is not None:
            _fail(path, f"expected nothing, got {type(value).__name__}")


class Either(_Schema):
    def __init__(self, *options: _Schema):
        self.options = options

    def check(self, value, path, depth):
        problems = []
        for option in self.options:
            try:
                option.check(value, path, depth)
                return
            except Invalid as exc:
                problems.append(str(exc))
        _fail(path, "matches no allowed shape (" + "; ".join(problems)[:400] + ")")


def Maybe(schema: _Schema) -> _Schema:
    return Either(Nothing(), schema)


class ListOf(_Schema):
    def __init__(self, item: _Schema, max_len: int = 10_000):
        self.item, self.max_len = item, max_len

    def check(self, value, path, depth):
        if type(value) is not list:
            _fail(path, f"expected a list, got {type(value).__name__}")
        if len(value) > self.max_len:
            _fail(path, f"more than {self.max_len} items")
        if depth > MAX_DEPTH:
            _fail(path, "nested too deeply")
        for index, item in enumerate(list.__iter__(value)):
            self.item.check(item, f"{path}[{index}]", depth + 1)


class DictOf(_Schema):
    def __init__(self, value: _Schema, key: _Schema | None = None, max_len: int = 10_000):
        self.value, self.key, self.max_len = value, key or Text(200), max_len

    def check(self, value, path, depth):
        if type(value) is not dict:
            _fail(path, f"expected a mapping, got {type(value).__name__}")
        if len(value) > self.max_len:
            _fail(path, f"more than {self.max_len} entries")
        if depth > MAX_DEPTH:
            _fail(path, "nested too deeply")
        for key, item in dict.items(value):
            self.key.check(key, f"{path} key", depth + 1)
            self.value.check(item, f"{path}[{key!r}]", depth + 1)


class Record(_Schema):
    """A dict with exactly these keys (``required``), and maybe some of ``optional``; no other key."""

    def __init__(self, required: dict | None = None, optional: dict | None = None):
        self.required, self.optional = dict(required or {}), dict(optional or {})

    def check(self, value, path, depth):
        if type(value) is not dict:
            _fail(path, f"expected a record, got {type(value).__name__}")
        keys = list(dict.keys(value))
        if any(type(key) is not str for key in keys):
            _fail(path, "a key that is not text")
        extra = sorted(set(keys) - set(self.required) - set(self.optional))
        if extra:
            _fail(path, f"unknown key(s) {extra[:5]}")
        missing = sorted(set(self.required) - set(keys))
        if missing:
            _fail(path, f"missing key(s) {missing[:5]}")
        for key in keys:
            (self.required.get(key) or self.optional[key]).check(dict.__getitem__(value, key), f"{path}.{key}", depth + 1)


class Tensor(_Schema):
    """A tensor of torch's own class: dense, on the CPU, at most ``max_numel`` elements."""

    def __init__(self, max_numel: int = 16 << 20):
        self.max_numel = max_numel

    def check(self, value, path, depth):
        import torch

        if type(value) is not torch.Tensor:
            _fail(path, f"expected a tensor, got {type(value).__name__}")
        if value.layout is not torch.strided or value.device.type != "cpu" or value.is_quantized:
            _fail(path, "a tensor that is not a dense CPU tensor")
        if value.numel() > self.max_numel:
            _fail(path, f"a tensor of more than {self.max_numel} elements")


class Plain(_Schema):
    """Any plain value (what ``sandbox.plain.to_plain`` makes): builtin scalars and text, lists,
    tuples, dicts with text or whole-number keys, tensors, nested at most ``MAX_DEPTH`` deep."""

    def __init__(self, max_text: int = MAX_TEXT):
        self.max_text = max_text
        self.tensor = Tensor()

    def check(self, value, path, depth):
        if depth > MAX_DEPTH:
            _fail(path, "nested too deeply")
        kind = type(value)
        if value is None or kind in (bool, int):
            return
        if kind is float:
            return
        if kind is str:
            if len(value) > self.max_text:
                _fail(path, "text too long")
            return
        if kind in (list, tuple):
            if len(value) > MAX_ITEMS:
                _fail(path, "too many items")
            for index, item in enumerate(list.__iter__(value) if kind is list else tuple.__iter__(value)):
                self.check(item, f"{path}[{index}]", depth + 1)
            return
        if kind is dict:
            if len(value) > MAX_ITEMS:
                _fail(path, "too many entries")
            for key, item in dict.items(value):
                if type(key) not in (str, int):
                    _fail(path, f"a key of type {type(key).__name__}")
                self.check(item, f"{path}[{key!r}]", depth + 1)
            return
        self.tensor.check(value, path, depth)


def validate(value, schema: _Schema, path: str = "payload") -> None:
    schema.check(value, path, 0)


# -- shapes shared by several kinds -------------------------------------------------------------------

SITE = {"file": Text(4000), "line": Maybe(Int()), "function": Text(400), "code": Text(4000)}
PLAIN_ERROR = Record({"kind": Text(40), "type": Text(200), "message": Text(20_000)}, {"gb_type": Text(2000), **SITE})
# ``plain``: what the same call raised run without compiling (the learner's own error, named first).
ERROR = Record({"kind": Text(40), "type": Text(200), "message": Text(20_000)},
               {"gb_type": Text(2000), "plain": PLAIN_ERROR, **SITE})
BREAK_SITE = Record({"reason": Text(20_000)}, {"type": Text(2000), **SITE})
BREAK_EVENT = Record({"type": Text(2000)}, {"cause": Text(2000), "reason": Text(20_000), "skips_frame": Bool(), "frame": Text(400),
                                           "user": Bool(), "functions": ListOf(Text(400), 500), "raised": Bool(), **SITE})
SKIPPED_SITE = Record({}, {"function": Text(400), "file": Text(4000), "line": Maybe(Int()), "type": Text(2000),
                          "reason": Text(20_000), "user": Bool()})
CALL_OUTPUT = Record({"stdout": Text(40_000), "logs": ListOf(Text(4000), 1000)})
COUNT = Int(0, 10_000_000)

MEASUREMENT = Record({
    "calls": COUNT, "graphs": COUNT, "ops_per_graph": ListOf(COUNT), "graph_breaks": COUNT, "break_sites": ListOf(BREAK_SITE),
    "recompiles": COUNT, "resets": COUNT, "recompile_reasons": ListOf(Text(20_000)), "compiled_calls": COUNT, "graph_runs": ListOf(COUNT), "skipped_frames": COUNT,
    "unfed_calls": ListOf(COUNT), "partly_fed_calls": ListOf(ListOf(COUNT, 3)), "error": Maybe(ERROR), "break_types": ListOf(Text(2000)), "skipped_sites": ListOf(SKIPPED_SITE),
    "outputs": ListOf(Plain()), "graph_targets": ListOf(Text(400), 200_000), "call_output": ListOf(CALL_OUTPUT),
    "aot_targets": ListOf(Text(400), 200_000), "user_calls": ListOf(Text(400)), "custom_ops": ListOf(Text(400)),
    "break_events": ListOf(BREAK_EVENT), "graph_ops": ListOf(ListOf(Text(400), 1000), 10_000),
})

"""The parts of each check kind that run a program; the judge's part, ``decide``, is in ``autograder.checks``.

A check kind has up to three parts, each registered where it runs:

- ``reference(spec, ref) -> Prepared``, here, with ``@references(kind)``: runs in the *reference
  child* (the grader's own copy of the exercise, the master module imported, before any learner
  code starts); returns plain data for the judge (``judge``: truths, reference runs) and for the
  learner's process (``learner``: inputs a probe needs, never an answer);
- ``measure(spec, lab) -> dict``, here, with ``@measures(kind, params=..., costly=...)``: runs in
  the *learner child*, beside the submission; returns plain data (the facts) only. ``params``
  names the check parameters it needs (the only ones the learner's process is told); ``costly``
  kinds run in the second phase, only when the judge says the structure passed;
- ``decide(spec, evidence) -> CheckResult``, in ``autograder.checks``, with ``@decides(kind,
  facts=SCHEMA)``: runs in the *judge*, from plain data, after the facts were validated against
  ``SCHEMA``.

A kind that needs nothing but the common measurement (``probe.measure``) has no ``measure``; one
that needs nothing from the master has no ``reference``. ``all`` imports every module here.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Measurer:
    function: object
    params: tuple = ()  # the check parameters the learner's process receives
    costly: bool = False  # second phase: timing, only once the structure passed


@dataclass
class Prepared:
    judge: dict = field(default_factory=dict)  # for the judge only: truths, reference runs
    learner: dict = field(default_factory=dict)  # for the learner's process: inputs of a probe


MEASURERS: dict[str, Measurer] = {}
REFERENCES: dict = {}


def measures(kind: str, params=(), costly: bool = False):
    def add(function):
        MEASURERS[kind] = Measurer(function, tuple(params), costly)
        return function

    return add


def references(kind: str):
    def add(function):
        REFERENCES[kind] = function
        return function

    return add


@dataclass(frozen=True)
class SpecView:
    """A check as the learner's process knows it: its name, kind and the parameters its measure needs."""

    name: str
    kind: str
    params: dict

"""Where each check kind's decision is registered: ``@decides(kind, facts=SCHEMA)``.

``DECIDERS[kind]`` holds the decision (``decide(spec, evidence) -> CheckResult``, run by the judge
from plain data) and the exact shape of the facts its ``measure`` part sends from the learner's
process (``checks.facts``; ``None``: the kind has no measure part and takes only the common
measurement). The parts that run a program are registered in ``autograder.sandbox.kinds``.
``autograder.checks.all.load_all()`` imports every module of this package, so that every kind is registered.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Decider:
    function: object
    facts: object = None  # checks.facts schema of the measure part's facts, or None
    timing: object = None  # timing kinds: facts -> what the result shows under measurements["timings"]


DECIDERS: dict[str, Decider] = {}


def decides(kind: str, facts=None, timing=None):
    def add(function):
        DECIDERS[kind] = Decider(function, facts, timing)
        return function

    return add

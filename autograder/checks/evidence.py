"""What a decision is given: plain data only, validated, from the two sides of a grading."""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.format.exercise import Exercise


class Measured:
    """The common measurement (``probe.measure`` in the learner's process) read as attributes:
    ``m.graphs``, ``m.error``, ``m.break_sites``... Plain data, validated against ``facts.MEASUREMENT``."""

    def __init__(self, data: dict | None = None):
        self.__dict__["_data"] = dict(data or {})

    def __getattr__(self, name):
        data = self.__dict__["_data"]
        if name in data:
            return data[name]
        if name in ("error",):
            return None
        if name in ("calls", "graphs", "graph_breaks", "recompiles", "resets", "compiled_calls", "skipped_frames"):
            return 0
        return []

    def to_dict(self) -> dict:
        return dict(self.__dict__["_data"])


@dataclass
class Evidence:
    exercise: Exercise
    measurement: Measured
    facts: dict = field(default_factory=dict)  # this check's facts from the learner's process (validated)
    reference: dict = field(default_factory=dict)  # what this check's reference part computed
    expected: list = field(default_factory=list)  # reference outputs, per call
    expected_output: list = field(default_factory=list)  # per call: what the reference printed and logged
    calls: int = 0  # how many calls the schedule has
    source: str = ""  # the exact text the grader read, scanned and sent to the learner's process
    filename: str = ""  # the path the submission's code was compiled under
    options: dict = field(default_factory=dict)  # the compile options the measurement used (plain)
    others: dict = field(default_factory=dict)  # the reference data of every check (a check may agree with another)
    device: str = "cpu"  # "cuda" or "cpu": where the grading ran

"""Notice when a submission replaces what the grader relies on.

``Watch.capture`` records the objects behind torch's compile entry points, the grader's own
counting backend and checks, and the timers, before any submission code runs. ``violations``
names each one that is no longer the same object and puts the original back, so the rest of the
grading still measures honestly while the grade is failed.
"""

from __future__ import annotations

import builtins
import time
from dataclasses import dataclass


def _targets(torch, probe, checks, timing):
    return probe.compiler_entry_points() + [
        ("torch.allclose", torch, "allclose"),
        ("torch.manual_seed", torch, "manual_seed"),
        ("torch.cuda.synchronize", torch.cuda, "synchronize"),
        ("time.perf_counter", time, "perf_counter"),
        ("builtins.isinstance", builtins, "isinstance"),
        ("the grader's GraphTally", probe, "GraphTally"),
        ("the grader's GraphTally.__call__", probe.GraphTally, "__call__"),
        ("the grader's measure()", probe, "measure"),
        ("the grader's compile_for_grading()", probe, "compile_for_grading"),
        ("the grader's compare()", checks, "compare"),
        ("the grader's run_checks()", checks, "run_checks"),
        ("the grader's speed_ratio()", timing, "speed_ratio"),
    ]


@dataclass
class Watch:
    originals: list  # (label, owner, attribute, object)
    runners: dict

    @classmethod
    def capture(cls, torch, probe, checks, timing) -> "Watch":
        originals = [(label, owner, attr, owner.__dict__.get(attr, getattr(owner, attr)))
                     for label, owner, attr in _targets(torch, probe, checks, timing)]
        return cls(originals=originals, runners=(checks.RUNNERS, dict(checks.RUNNERS)))

    def violations(self) -> list[str]:
        found = []
        for label, owner, attr, original in self.originals:
            current = owner.__dict__.get(attr, getattr(owner, attr, None))
            if current is not original:
                found.append(f"{label} was replaced; the grade cannot trust a run where it is patched")
                setattr(owner, attr, original)
        table, saved = self.runners
        if table != saved:
            found.append("the grader's table of checks was modified")
            table.clear()
            table.update(saved)
        return found

"""Measure part of ``warm_start`` (decision: ``autograder.checks.caches``).

Two start-ups of the learner's model in processes forked from the learner's (``probe.warm_start_report``):
a cold one with an empty Inductor cache that ends with the learner's ``save()``, and a warm one
with another empty cache that begins with ``load(bytes)``; only the bytes cross. Each answers the
first call of the schedule; what comes back is plain data (CPU times, cache counters, the answer,
errors), and the reference's answer to that call is the judge's, never sent here.
"""

from __future__ import annotations

from autograder.sandbox.kinds import measures

DEFAULT_SAVE, DEFAULT_LOAD = "save_compile_state", "load_compile_state"


@measures("warm_start", params=("save", "load", "timeout"))
def warm_start_measure(spec, lab) -> dict:
    import torch

    from autograder.sandbox import probe

    p = spec.params
    names = {"save": p.get("save", DEFAULT_SAVE), "load": p.get("load", DEFAULT_LOAD)}
    functions = {key: lab.submission.__dict__.get(name) for key, name in names.items()}
    missing = [names[key] for key, function in functions.items() if not callable(function)]
    if missing:
        return {"missing": missing}
    made = lab.submission.__dict__.get(lab.exercise["entry"])

    def make():
        torch.manual_seed(0)
        return made() if lab.exercise["factory"] else made

    return probe.warm_start_report(make, lab.calls[0], functions["save"], functions["load"],
                                   timeout=float(p.get("timeout", 120)))

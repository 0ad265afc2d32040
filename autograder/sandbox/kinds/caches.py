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


@measures("later_run", params=("runs",))
def later_run_measure(spec, lab) -> dict:
    """The job run again as new processes would run it (``probe.job_reruns``): each run imports the
    learner's file afresh (what its import sets, a job id included, is set again) and starts from a
    reset Dynamo, in a cache folder of its own under the grading's scratch folder, so what the main
    measurement left in the grading's cache neither helps nor hinders it."""
    import tempfile
    import types

    import torch

    from autograder.sandbox import probe

    folder = tempfile.mkdtemp(prefix="later-run-", dir=lab.scratch)
    code = compile(lab.source, lab.filename, "exec", dont_inherit=True)

    def start():
        module = types.ModuleType("submission")
        module.__file__ = lab.filename
        torch.manual_seed(0)
        exec(code, module.__dict__)  # noqa: S102 - the learner's own file, in the learner's process, as a new process imports it
        made, driver, _ = lab.build(module)
        return made, driver

    _, _, options = lab.build(lab.submission)
    return probe.job_reruns(start, lab.calls, folder, options=options, runs=int(spec.params.get("runs", 2)))

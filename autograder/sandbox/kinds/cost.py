"""Measure parts of chapters 5 and 6 (decisions: ``autograder.checks.cost``).

- ``guards`` and ``stance_calls`` share one guard report: recorded by the grading's own run of
  the schedule (``probe.measure(record_guards=True)``: a keep-all-recording filter around the
  learner's own), or, where the exercise measures itself, the entry compiled again with that
  filter over the schedule (``probe.guard_report``);
  ``guards`` adds, for each compile, the values its config keys had while that compile built its
  guards (a ``config.patch`` block around the learner's call counts; a setting made after the
  compile does not);
- ``compile_time`` (costly): Dynamo's compile time over a cold run of the schedule, the starter
  and the submission interleaved ``repeats`` times, with the graphs each run compiled;
- ``guard_time`` (costly): the median "TorchDynamo Cache Lookup" time per call, baseline and
  submission interleaved, with the graphs the submission's compile produced.

A timing with no graph compiled means nothing; the counts go to the judge, which fails it.
"""

from __future__ import annotations

import contextlib

from autograder.sandbox.kinds import measures
from autograder.sandbox.kinds.core import FIX_VALUES, Feeds, note_answers
from autograder.sandbox.plain import fingerprint, to_plain


def guard_report(lab) -> dict:
    """One guard run per grading, shared by the kinds; the configuration each compile saw (every
    key) stays in this process, and each ``guards`` check sends only the keys it names."""
    from autograder.sandbox import probe

    cached = lab.extra.get("guard_report")
    if cached is None and lab.measurement.guard_report is not None:  # recorded by the grading's own run (probe.measure)
        report = dict(lab.measurement.guard_report)
        lab.extra["config_at_compile"] = report.pop("config_at_compile")
        cached = lab.extra["guard_report"] = to_plain(report)
    if cached is None:
        # From the settings the file made on import, not those an earlier run of its code left set;
        # the build (a factory may set some) and the compiles happen inside.
        with probe.config_as(lab.extra.get("config_after_import") or probe.config_snapshot()):
            made, driver, options = lab.build(lab.submission)
            report = probe.guard_report(made, lab.calls, options, driver=driver, config_keys=None)
        lab.extra["config_at_compile"] = report.pop("config_at_compile")
        cached = lab.extra["guard_report"] = to_plain(report)
    return cached


@measures("guards", params=("config",))
def guards_measure(spec, lab) -> dict:
    keys = list((spec.params.get("config") or {}))
    report = guard_report(lab)
    at_compile = [{key: to_plain(seen[key]) for key in keys if key in seen} for seen in lab.extra["config_at_compile"]]
    return {"report": report, "config_at_compile": at_compile}


@measures("stance_calls")
def stance_calls_measure(spec, lab) -> dict:
    return {"report": guard_report(lab)}


@measures("compile_time", params=("backend", "repeats"), costly=True)
def compile_time_measure(spec, lab) -> dict:
    from autograder.sandbox import probe

    if lab.measurement.error:
        return {"not_run": True}
    p = spec.params
    backend, repeats = p.get("backend", "aot_eager"), p.get("repeats", 3)
    with lab.grader_side():  # the starter as it runs without the submission's process-wide state
        starter = lab.starter_module()
    # Each repeat's schedule is fresh (new tensors, values nudged: kinds.core.Feeds), the same for both
    # sides: a fix that remembered answers from the structure run would skip calls, and their compiles.
    # The answers of the two are compared (the starter answers as the reference does: exercise.py).
    feeds = Feeds(lab.calls, lab)
    pairs, graphs, answers = [], [], {"checked": 0}
    for number in range(repeats):  # interleaved: starter, submission, starter, submission, ...
        calls = feeds.inputs(FIX_VALUES, number, 0)
        returned: dict[str, list] = {"starter": [], "fix": []}
        with lab.grader_side():
            made, driver, options = lab.build(starter)
            before, _ = probe.cold_compile(made, calls, backend, driver=driver, options=options, clock="compile",
                                           outputs=returned["starter"])
            want = [fingerprint(to_plain(result)) for result in returned["starter"]]
        made, driver, options = lab.build(lab.submission)
        after, compiled = probe.cold_compile(made, calls, backend, driver=driver, options=options, clock="compile",
                                             outputs=returned["fix"])
        pairs.append([float(before), float(after)])
        graphs.append(int(compiled))
        if "differ" not in answers:
            note_answers(answers, want, [fingerprint(to_plain(result)) for result in returned["fix"]])
    if "differ" in answers:
        answers["differ"] = answers["differ"][:500]
    return {"seconds": pairs, "graphs": graphs, "backend": backend, "answers": answers}


@measures("guard_time", params=("against", "repeats", "rounds"), costly=True)
def guard_time_measure(spec, lab) -> dict:
    import torch

    from autograder.sandbox import probe

    if lab.measurement.error:
        return {"not_run": True}
    p = spec.params
    against, repeats, rounds = p.get("against", "starter"), p.get("repeats", 5), p.get("rounds", 3)
    defaults = probe.config_defaults(lab.exercise["allow_config"])
    # The starter as it runs without the submission's process-wide state (``Lab.grader_side``); the
    # fix's own code under default settings runs under its own.
    isolated = lab.grader_side if against == "starter" else contextlib.nullcontext
    if against == "starter":
        with isolated():
            base_entry, base_driver, base_options = lab.build(lab.starter_module())
    else:
        base_entry, base_driver, base_options = lab.build(lab.submission)
        base_options.pop("guard_filter_fn", None)
    counter = probe.CountingBackend("eager")
    with torch.no_grad():
        probe.clean_state()
        with probe.dynamo_config(defaults), isolated():
            baseline = probe.compile_with(base_entry, "eager", base_options)
            probe.lookup_us(baseline, lab.calls, base_driver)  # compiles (warm-up)
        made, driver, options = lab.build(lab.submission)
        candidate = probe.compile_with(made, counter, options)
        probe.lookup_us(candidate, lab.calls, driver)
        pairs = []
        for _ in range(repeats):
            with isolated():
                before = probe.lookup_us(baseline, lab.calls, base_driver, rounds, statistic="median")
            after = probe.lookup_us(candidate, lab.calls, driver, rounds, statistic="median")
            pairs.append([float(before), float(after)])
        probe.clean_state()
    return {"lookup_us": pairs, "graphs": counter.graphs, "against": against}

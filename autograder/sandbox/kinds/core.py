"""Reference and measure parts of the kinds every chapter uses (see ``autograder.checks.core`` for their decisions).

``compiles``, ``graphs``, ``graph_breaks``, ``recompiles``, ``compiled_calls`` and ``correct`` need
nothing but the common measurement (``probe.measure``) and the reference outputs.
"""

from __future__ import annotations

import copy

from autograder.sandbox.kinds import Prepared, measures, references
from autograder.sandbox.plain import object_marker, to_plain


# -- answers --------------------------------------------------------------------------------------

@references("answers")
def answers_reference(spec, ref) -> Prepared:
    """The truth, measured live by the master; with ``variants``, one parameter set per variant
    (drawn from the grading's seed) for the learner's ``function``, and the truth of each."""
    import torch

    p = spec.params
    judge: dict = {}
    learner: dict = {}
    remember = ref.truths.remember if ref.truths is not None else (lambda name, params, compute: to_plain(compute()))
    if not p.get("variants"):
        name = p.get("truth", "expected_answers")
        judge["truth"] = remember(name, None, getattr(ref.master, name))
    else:
        if p.get("constant") and p.get("constant_truth"):
            judge["truth"] = remember(p["constant_truth"], None, getattr(ref.master, p["constant_truth"]))
        draw = getattr(ref.master, p["variants"])
        variants = [dict(params) for params in draw(torch.Generator().manual_seed(ref.seed))]
        plain = [to_plain(params) for params in variants]
        if p.get("truth"):
            truth_of = getattr(ref.master, p["truth"])
            truths = [remember(p["truth"], shown, lambda params=params: truth_of(copy.deepcopy(params)))
                      for params, shown in zip(variants, plain)]
        else:
            solution = getattr(ref.master, p["function"])
            truths = [remember(p["function"], shown, lambda params=params: solution(**copy.deepcopy(params)))
                      for params, shown in zip(variants, plain)]
        judge["variant_truths"] = truths
        learner["variants"] = plain
        judge["variants"] = learner["variants"]
    return Prepared(judge=judge, learner=learner)


@measures("answers", params=("constant", "constant_truth", "function", "variants"))
def answers_measure(spec, lab) -> dict:
    """What the file states (a module-level constant, as plain data), and, with ``variants``, what its
    ``function`` returns for each hidden parameter set (an exception is reported, not raised)."""
    p = spec.params
    facts: dict = {}
    if (p.get("constant") and p.get("constant_truth")) or not p.get("variants"):
        name = p.get("constant", "ANSWERS")
        facts["given"] = to_plain(lab.submission.__dict__[name]) if name in lab.submission.__dict__ else None
        facts["defined"] = name in lab.submission.__dict__
    if p.get("variants"):
        function = lab.submission.__dict__.get(p["function"])
        facts["function_defined"] = callable(function)
        from autograder.sandbox.probe import frames_compiled

        results = []
        frames_before = frames_compiled()
        for params in (lab.data.get(spec.name, {}).get("variants") or []) if callable(function) else []:
            try:
                results.append({"value": to_plain(function(**copy.deepcopy(params)))})
            except Exception as exc:  # noqa: BLE001 - the learner's function failing is an answer too
                results.append({"raised": f"{type(exc).__name__}: {str(exc)[:300]}"})
        facts["variants"] = results
        # A prediction states the rule; one that compiles the experiment and counts is the experiment.
        facts["frames_compiled"] = max(0, frames_compiled() - frames_before)
    return facts


# -- speed ------------------------------------------------------------------------------------------

@measures("speed", params=("against", "backend", "warmup", "repeats", "needs"), costly=True)
def speed_measure(spec, lab) -> dict:
    """Compiled (``backend``, Inductor by default) against eager or the starter, timed in this process."""
    import torch

    from autograder.sandbox import probe, timing

    p = spec.params
    needs = p.get("needs", [])
    needs = [needs] if isinstance(needs, str) else list(needs)
    if "cuda" in needs and timing.device_kind() != "cuda":
        return {"skipped": "cuda"}
    if lab.measurement.error:
        return {"not_run": True}
    baseline = lab.entry
    if p.get("against", "eager") == "starter":
        baseline, _, _ = lab.build(lab.starter_module())
    counter = probe.CountingBackend(p.get("backend", "inductor"))
    candidate = torch.compile(lab.entry, backend=counter, **{k: v for k, v in lab.exercise["compile"].items() if k in ("fullgraph", "dynamic")})
    with torch.no_grad():
        timed = timing.speed_ratio(baseline, candidate, copy.deepcopy(lab.calls[0]), warmup=p.get("warmup", 3), repeats=p.get("repeats", 15))
    return {"timing": {k: float(v) if k != "repeats" else int(v) for k, v in timed.items()}, "graphs": counter.graphs}


def describe_value(value):
    return object_marker(value)

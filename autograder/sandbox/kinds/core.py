"""Reference and measure parts of the kinds every chapter uses (see ``autograder.checks.core`` for their decisions).

``compiles``, ``graphs``, ``graph_breaks``, ``recompiles``, ``compiled_calls`` and ``correct`` need
nothing but the common measurement (``probe.measure``) and the reference outputs.
"""

from __future__ import annotations

import contextlib
import copy
import os

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

SPEED_SEED_SALT = 104_729  # the timed inputs come from a generator of their own, apart from the schedule's


@references("speed")
def speed_reference(spec, ref) -> Prepared:
    """With ``inputs`` (a master function of ``gen``, like ``calls``), the inputs the speed check
    times, drawn from the grading's seed: large enough for a timing to mean something, while the
    structure checks run on the cheap schedule ``calls``. The judge gets a fingerprint of the
    reference's outputs on them (``plain.fingerprint``), so a fix that is fast because it is wrong
    on large inputs fails. Nothing is drawn in a grading that will not time."""
    import torch

    from autograder.sandbox.plain import fingerprint, name_file_functions

    name = spec.params.get("inputs")
    if not name or not ref.costly:
        return Prepared()
    calls = getattr(ref.master, name)(torch.Generator().manual_seed(int(ref.seed) * SPEED_SEED_SALT + 1))
    pristine = name_file_functions(copy.deepcopy(calls), ref.master)
    with torch.no_grad():
        expected = [fingerprint(to_plain(ref.reference(*copy.deepcopy(args)))) for args in calls]
    return Prepared(learner={"calls": to_plain(pristine)}, judge={"fingerprints": expected})


def _timed_calls(spec, lab) -> tuple[list, list | None]:
    """The calls the speed check times: its own ``inputs`` when the master has them, else the schedule;
    and the list the fingerprints of the fix's answers on its own inputs go to (None without them:
    the schedule's answers were compared by ``correct``)."""
    from autograder.sandbox.plain import file_functions_named, with_file_functions

    own = lab.data.get(spec.name, {}).get("calls")
    if own is None:
        return copy.deepcopy(lab.calls), None
    return with_file_functions(own, {name: getattr(lab.submission, name, None) for name in file_functions_named(own)}), []


def _schedule(fn, driver, calls, outputs: list | None = None):
    """A zero-argument run of the whole schedule through ``fn`` (by way of the exercise's driver);
    with ``outputs``, the fingerprint of what each call returned is appended to it, at once (a
    result the next call overwrites in place is read as it was returned)."""
    from autograder.sandbox.plain import fingerprint

    def run():
        for args in calls:
            result = driver(fn, *args) if driver is not None else fn(*args)
            if outputs is not None:
                outputs.append(fingerprint(to_plain(result)))
    return run


def _fix_config(lab) -> dict:
    """The ``torch._dynamo.config`` the fix compiles under: what the learner's file set on import."""
    from autograder.sandbox import probe

    return lab.extra.get("config_after_import") or probe.config_snapshot()


def _starter_with_config(lab) -> tuple:
    """The starting file imported from the default settings, and the ``torch._dynamo.config`` it
    compiles under: what its import set. Settings are global and read when a frame is traced, so
    without this the starter would compile with the fix's (a reorderable print makes the starter's
    split graph whole too, and the two time alike)."""
    from autograder.sandbox import probe

    keys = [*lab.exercise["allow_config"], *lab.exercise["config_may_add"]]
    with probe.dynamo_config(probe.config_defaults(keys)), lab.grader_side():
        module = lab.starter_module()
        return module, probe.config_snapshot()


def _on_grader_side(lab, run):
    """``run`` (a side of the grader's own: the starting file) in ``Lab.grader_side``: torch's
    process-wide state as it was before the submission ran, compiler caches of its own."""
    def isolated():
        with lab.grader_side():
            run()
    return isolated


def _steady_sides(lab, against: str, backend, calls: list, outputs: list | None) -> tuple[dict, object]:
    """The fix compiled, its own code eagerly, and (against the starter) the starter compiled the same
    way, each compiled here by one pass under its own file's settings (the fix's first pass appends
    the fingerprints of what it returned to ``outputs``, when given); a counter of the graphs the fix
    compiled."""
    import torch

    from autograder.sandbox import probe

    # Nothing the structure run compiled may serve a timed call: with a filter that drops module
    # guards, one of its cache entries (on the same code) could answer for the freshly built model.
    probe.clean_state()
    made, driver, options = lab.build(lab.submission)
    counter = probe.CountingBackend(backend)
    fix = probe.compile_with(made, counter, options)
    sides = {"eager": _schedule(made, driver, calls), "fix": _schedule(fix, driver, calls)}
    compiled = {"fix": _fix_config(lab)}
    if against == "starter":
        starter, starter_config = _starter_with_config(lab)
        with probe.config_as(starter_config), lab.grader_side():
            s_made, s_driver, s_options = lab.build(starter)
        sides["starter"] = _on_grader_side(lab, _schedule(probe.compile_with(s_made, backend, s_options), s_driver, calls))
        compiled["starter"] = starter_config
    elif against == "starter_eager":
        # The server as it was, never compiled: work a fix leaves outside its compiled code (eager tensor
        # work around the compiled call) is counted in full, where against its own eager code it is on
        # both sides and only pulls the ratio toward 1.
        with lab.grader_side():
            s_made, s_driver, _ = lab.build(_starter_with_config(lab)[0])
        sides["starter_eager"] = _on_grader_side(lab, _schedule(s_made, s_driver, calls))
    with torch.no_grad():  # as they are timed: grad mode is guarded
        for side, config in compiled.items():
            with probe.config_as(config):
                (_schedule(fix, driver, calls, outputs) if side == "fix" else sides[side])()
    return sides, counter


def _end_to_end(lab, against: str, backend: str, rounds: int, calls: list, outputs: list | None) -> tuple[dict, int]:
    """Per round, each side's whole schedule once from a fresh Dynamo state with cold Inductor caches,
    compile included: the starter and the fix in alternating order, then the schedule run eagerly."""
    import time

    import torch

    from autograder.sandbox import probe
    from autograder.sandbox.plain import fingerprint

    if backend == "inductor" and not torch.cuda.is_available():
        # Inductor's one-time check of the CPU (seconds where the warm worker has not done it) would
        # land in the first side's first round: done untimed here.
        probe.check_cpu_for_inductor()
    times: dict[str, list[float]] = {"fix": [], "eager": []}
    if against == "starter":
        times["starter"] = []
    graphs = 0
    configs = {"fix": _fix_config(lab), **({"starter": _starter_with_config(lab)[1]} if against == "starter" else {})}
    for number in range(rounds):
        for side in [s for s in (("fix", "starter") if number % 2 else ("starter", "fix")) if s in times]:
            # Each side compiles under its own file's settings; the starter under the process-wide state
            # from before the submission ran.
            with probe.config_as(configs[side]), (lab.grader_side() if side == "starter" else contextlib.nullcontext()):
                made, driver, options = lab.build(lab.submission if side == "fix" else lab.starter_module())
                returned = [] if side == "fix" and outputs == [] else None  # the fix's first round only
                seconds, compiled = probe.cold_compile(made, calls, backend, driver=driver, options=options, clock="wall",
                                                       outputs=returned)
                if returned is not None:
                    outputs += [fingerprint(to_plain(result)) for result in returned]
            times[side].append(seconds)
            if side == "fix":
                graphs = max(graphs, compiled)
        made, driver, _ = lab.build(lab.submission)
        run = _schedule(made, driver, copy.deepcopy(calls))
        with torch.no_grad():
            started = time.perf_counter()
            run()
            times["eager"].append(time.perf_counter() - started)
    return times, graphs


@measures("speed", params=("against", "mode", "backend", "warmup", "repeats", "min_repeat_ms", "rounds", "needs", "max_spread", "inputs"),
          costly=True)
def speed_measure(spec, lab) -> dict:
    """The fix compiled (``backend``, Inductor by default) against its own code run eagerly and, with
    ``against = "starter"``, against the starter compiled the same way or, with ``"starter_eager"``,
    against the starter run eagerly, all timed in one interleaved loop in this process. ``mode = "end_to_end"``: whole cold schedules, compile included. A spread
    of the decisive ratios above ``max_spread`` is retried once with twice the repeats (rounds)."""
    from autograder.sandbox import timing

    p = spec.params
    needs = p.get("needs", [])
    needs = [needs] if isinstance(needs, str) else list(needs)
    if "cuda" in needs and timing.device_kind() != "cuda":
        return {"skipped": "cuda"}
    if lab.measurement.error:
        return {"not_run": True}
    against, mode, backend = p.get("against", "eager"), p.get("mode", "steady"), p.get("backend", "inductor")
    limit = p.get("max_spread", 0.5)
    load_before = timing.load_average()
    # One thread on a CPU, set before anything is compiled (Inductor writes the thread count into its
    # kernels): on a shared machine a parallel kernel waits for whichever of its threads the
    # scheduler has put aside, and those waits, not the code, decided the timings.
    with timing.one_thread() if timing.device_kind() == "cpu" else contextlib.nullcontext():
        return _speed(spec, lab, against, mode, backend, limit, load_before)


def _speed(spec, lab, against, mode, backend, limit, load_before) -> dict:
    import torch

    from autograder.sandbox import timing

    p = spec.params
    attempts = []
    calls, outputs = _timed_calls(spec, lab)
    sides, counter = _steady_sides(lab, against, backend, calls, outputs) if mode != "end_to_end" else (None, None)
    for attempt in range(2):
        if mode == "end_to_end":
            times, graphs = _end_to_end(lab, against, backend, p.get("rounds", 2) * (attempt + 1), calls, outputs)
        else:
            with torch.no_grad():  # the retry runs warm sides: no second warm-up
                times = timing.interleaved(sides, p.get("warmup", 3) if attempt == 0 else 0, p.get("repeats", 15) * (attempt + 1),
                                           min_seconds=p.get("min_repeat_ms", 25) / 1e3)
            graphs = counter.graphs
        found = timing.summary(times, "fix", against)
        attempts.append(found["spread"])
        if found["spread"] <= limit:
            break
    eager = timing.summary(times, "fix", "eager")
    ms = found["ms"]
    return {"graphs": int(graphs), "timing": {
        "ratio": float(found["ratio"]), "ratio_q1": float(found["ratio_q1"]), "ratio_q3": float(found["ratio_q3"]),
        "eager_ratio": float(eager["ratio"]), "eager_q1": float(eager["ratio_q1"]), "eager_q3": float(eager["ratio_q3"]), "baseline_ms": float(ms[against]), "candidate_ms": float(ms["fix"]),
        "eager_ms": float(ms["eager"]), **({"starter_ms": float(ms["starter"])} if "starter" in ms else {}),
        **({"starter_eager_ms": float(ms["starter_eager"])} if "starter_eager" in ms else {}),
        "repeats": int(found["repeats"]), "spreads": [float(s) for s in attempts], "unreliable": found["spread"] > limit,
        "load": [float(load_before), float(timing.load_average())], "cores": int(os.cpu_count() or 1),
        "threads": int(torch.get_num_threads()),
        "against": against, "mode": mode},
        **({"fingerprints": outputs} if outputs is not None else {})}


def describe_value(value):
    return object_marker(value)

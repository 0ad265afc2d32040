"""Reference and measure parts of the kinds every chapter uses (see ``autograder.checks.core`` for their decisions).

``compiles``, ``graphs``, ``graph_breaks``, ``recompiles``, ``compiled_calls`` and ``correct`` need
nothing but the common measurement (``probe.measure``) and the reference outputs.
"""

from __future__ import annotations

import contextlib
import copy
import os

from autograder.format.fingerprints import fingerprints_differ
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


# -- the timed passes' inputs: never seen before, and the answers compared ----------------------------
#
# A fix that remembers its answers (by a request's id, by its values, by its place in the schedule)
# and hands them out again is fast only where the timing repeats the same calls. So every timed pass
# of every side gets inputs no pass saw before: each floating-point tensor of the schedule new, each
# value multiplied by a factor within 3% of 1 (``_nudged``, from a generator seeded by a secret this
# process drew before the timing). The fix and the grader's own side (the starting file) get
# the same values in the same repeat; the fix's own eager side other values (else a fix remembering
# by value would hand its compiled side what its eager side had just computed). And on a few passes
# chosen at random among the repeats, untimed, the fix's answers are fingerprinted at once and
# compared with the starting file's on the same fresh inputs: an answer remembered from other inputs
# differs. Only where the starting file's own answers do not depend on what it was asked before (two
# of its passes on the same inputs agree) and it answers as the reference does (no speed exercise's
# starter fails `correct`: `dev check`).

PERTURBATION = 2.0 ** -5  # 3%: an answer remembered for inputs this far off differs well beyond the comparison's 1e-3
ANSWER_CHECKS = 3  # repeats whose answers are compared
FIX_VALUES, EAGER_VALUES, CHECK_VALUES, HISTORY_VALUES = range(4)  # whose values: kinds of nudge seeds
NUDGE_PERIOD = 4096  # the factors repeat along a tensor's flattened values with this period


def _nudged(value, generator):
    """A new tensor: ``value``'s elements, the k-th multiplied by row[k % NUDGE_PERIOD], a row of
    factors 1 + PERTURBATION * u drawn for this pass. One pass over the data (drawing a factor per
    element cost 390 ms a pass for a 34 MB frame): what keeps a remembered answer from passing is the
    comparison of answers, not the shape of the nudge, since a fix that knew the schedule's values
    could recognise any nudged copy of them."""
    import torch

    u = torch.rand(NUDGE_PERIOD, generator=generator, dtype=torch.float64)
    row = (1 + PERTURBATION * (2 * u - 1)).to(device=value.device, dtype=value.dtype)
    flat = value.reshape(-1)
    whole = flat.numel() - flat.numel() % NUDGE_PERIOD
    out = torch.empty_like(flat)
    torch.mul(flat[:whole].view(-1, NUDGE_PERIOD), row, out=out[:whole].view(-1, NUDGE_PERIOD))
    torch.mul(flat[whole:], row[:flat.numel() - whole], out=out[whole:])
    return out.view(value.shape)


def perturbed(calls, generator):
    """A copy of ``calls`` in which every floating-point tensor is new, each value multiplied by a
    factor 1 + PERTURBATION * u (u uniform in [-1, 1) from ``generator``, ``_nudged``); other tensors
    are copied and everything else is kept (the same tensor twice stays one tensor)."""
    import torch

    made: dict[int, object] = {}

    def visit(value):
        if isinstance(value, torch.Tensor):
            if id(value) not in made:
                if value.is_floating_point():
                    new = _nudged(value, generator)
                else:
                    new = value.clone()
                made[id(value)] = new.requires_grad_() if value.requires_grad and new.is_floating_point() else new
            return made[id(value)]
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return tuple(visit(item) for item in value)
        if isinstance(value, list):
            return [visit(item) for item in value]
        if isinstance(value, dict):
            return {key: visit(item) for key, item in value.items()}
        return value

    return visit(calls)


class Feeds:
    """The inputs of every timed pass of every side (``prepare``, untimed; ``take``, per pass)."""

    def __init__(self, calls: list, lab, secret: int | None = None):
        import secrets

        self.calls, self.lab = calls, lab
        self.secret = secrets.randbits(48) if secret is None else secret
        self.queues: dict[str, list] = {}

    def inputs(self, kind: int, repeat: int, number: int) -> list:
        import torch

        seed = hash((self.secret, kind, repeat, number)) & (2 ** 62 - 1)
        with self.lab.grader_side(), torch.no_grad():  # nothing the submission left in effect touches them
            return perturbed(self.calls, torch.Generator().manual_seed(seed))

    def prepare(self, side: str, repeat: int, runs: int) -> None:
        if repeat < 0:  # the warm-up and the sizing run are not timed: the schedule as it is
            self.queues[side] = [self.calls] * runs
            return
        kind = EAGER_VALUES if side == "eager" else FIX_VALUES
        self.queues[side] = [self.inputs(kind, repeat, number) for number in range(runs)]

    def take(self, side: str) -> list:
        queue = self.queues.get(side)
        return queue.pop() if queue else self.calls  # a pass nobody prepared (none in a timing): the schedule


def _fed(fn, driver, feeds: Feeds, side: str):
    """A timed pass of ``side``: the schedule through ``fn`` on the next inputs ``feeds`` prepared."""
    def run():
        for args in feeds.take(side):
            driver(fn, *args) if driver is not None else fn(*args)
    return run


def _answers_of(fn, driver, lab, grader: bool):
    """A pass on given inputs whose answers are fingerprinted at once (a result the next call
    overwrites in place is read as it was returned); the grader's side in ``Lab.grader_side``."""
    def answers(calls: list) -> list:
        found: list = []
        with lab.grader_side() if grader else contextlib.nullcontext():
            _schedule(fn, driver, calls, found)()
        return found
    return answers


def compare_answers(feeds: Feeds, answers: dict, baseline: str | None, repeats: list[int], record: dict):
    """``after_repeat`` for ``timing.interleaved``: on the chosen repeats, the fix's answers and the
    grader's side's on the same fresh inputs, compared; the outcome goes to ``record``."""
    import torch

    def after(repeat: int) -> None:
        if baseline is None or record.get("differ") or record.get("skipped") or repeat not in repeats:
            return
        with torch.no_grad():
            want = answers[baseline](feeds.inputs(CHECK_VALUES, repeat, 0))
            got = answers["fix"](feeds.inputs(CHECK_VALUES, repeat, 0))
        note_answers(record, want, got)
    return after


def note_answers(record: dict, starters: list, fixes: list) -> None:
    """Count one comparison of the fix's answers with the starting file's on the same fresh inputs
    in ``record``, and keep the first difference (``record["differ"]``)."""
    record["checked"] = record.get("checked", 0) + 1
    wrong = fingerprints_differ(starters, fixes, other="the starting file")
    if wrong:
        record["differ"] = wrong


def _history_free(feeds: Feeds, answers) -> bool:
    """Whether the grader's side answers the same inputs alike twice (its answers do not depend on
    what it was asked before: no running statistics, no training step)."""
    import torch

    with torch.no_grad():
        first = answers(feeds.inputs(HISTORY_VALUES, 0, 0))
        second = answers(feeds.inputs(HISTORY_VALUES, 0, 0))
    return fingerprints_differ(first, second) is None


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


def _steady_sides(lab, against: str, backend, calls: list, outputs: list | None, feeds: Feeds) -> tuple[dict, object, dict]:
    """The fix compiled, its own code eagerly, and (against the starter) the starter compiled the same
    way or run eagerly, each timed pass on the inputs ``feeds`` prepares, each compiled side compiled
    here by one pass on the schedule itself under its own file's settings (the fix's first pass
    appends the fingerprints of what it returned to ``outputs``, when given); a counter of the graphs
    the fix compiled; and, per side whose answers are compared, a pass that fingerprints them."""
    import torch

    from autograder.sandbox import probe

    # Nothing the structure run compiled may serve a timed call: with a filter that drops module
    # guards, one of its cache entries (on the same code) could answer for the freshly built model.
    probe.clean_state()
    made, driver, options = lab.build(lab.submission)
    counter = probe.CountingBackend(backend)
    fix = probe.compile_with(made, counter, options)
    sides = {"eager": _fed(made, driver, feeds, "eager"), "fix": _fed(fix, driver, feeds, "fix")}
    answers = {"fix": _answers_of(fix, driver, lab, grader=False)}
    warm = {"fix": (_fix_config(lab), _schedule(fix, driver, calls, outputs))}
    if against == "starter":
        starter, starter_config = _starter_with_config(lab)
        with probe.config_as(starter_config), lab.grader_side():
            s_made, s_driver, s_options = lab.build(starter)
        s_fn = probe.compile_with(s_made, backend, s_options)
        sides["starter"] = _on_grader_side(lab, _fed(s_fn, s_driver, feeds, "starter"))
        warm["starter"] = (starter_config, _on_grader_side(lab, _schedule(s_fn, s_driver, calls)))
        answers["starter"] = _answers_of(s_fn, s_driver, lab, grader=True)
    elif against == "starter_eager":
        # The server as it was, never compiled: work a fix leaves outside its compiled code (eager tensor
        # work around the compiled call) is counted in full, where against its own eager code it is on
        # both sides and only pulls the ratio toward 1.
        with lab.grader_side():
            s_made, s_driver, _ = lab.build(_starter_with_config(lab)[0])
        sides["starter_eager"] = _on_grader_side(lab, _fed(s_made, s_driver, feeds, "starter_eager"))
        answers["starter_eager"] = _answers_of(s_made, s_driver, lab, grader=True)
    with torch.no_grad():  # as they are timed: grad mode is guarded
        for side, (config, run) in warm.items():
            with probe.config_as(config):
                run()
    return sides, counter, answers


def _end_to_end(lab, against: str, backend: str, rounds: int, calls: list, outputs: list | None, feeds: Feeds,
                checked: dict) -> tuple[dict, int]:
    """Per round, each side's whole schedule once from a fresh Dynamo state with cold Inductor caches,
    compile included: the starter and the fix in alternating order, on the same fresh inputs, then the
    schedule run eagerly on others. Against the starter, each round's answers of the two are compared
    (``checked``). Only the fix's first round, when it is fingerprinted for the reference
    (``outputs``, the speed check's own inputs, which no pass has seen), runs on the inputs as drawn."""
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
        as_drawn = number == 0 and outputs == []
        inputs = copy.deepcopy(calls) if as_drawn else feeds.inputs(FIX_VALUES, number, 0)
        answers: dict[str, list] = {}
        for side in [s for s in (("fix", "starter") if number % 2 else ("starter", "fix")) if s in times]:
            # Each side compiles under its own file's settings; the starter under the process-wide state
            # from before the submission ran.
            returned: list = []
            with probe.config_as(configs[side]), (lab.grader_side() if side == "starter" else contextlib.nullcontext()):
                made, driver, options = lab.build(lab.submission if side == "fix" else lab.starter_module())
                seconds, compiled = probe.cold_compile(made, inputs, backend, driver=driver, options=options, clock="wall",
                                                       outputs=returned)
                answers[side] = [fingerprint(to_plain(result)) for result in returned]
            if side == "fix" and as_drawn:
                outputs += answers[side]
            times[side].append(seconds)
            if side == "fix":
                graphs = max(graphs, compiled)
        if "starter" in answers and not checked.get("differ"):
            note_answers(checked, answers["starter"], answers["fix"])
        made, driver, _ = lab.build(lab.submission)
        run = _schedule(made, driver, feeds.inputs(EAGER_VALUES, number, 0))
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

    import random

    p = spec.params
    attempts = []
    calls, outputs = _timed_calls(spec, lab)
    feeds = Feeds(calls, lab)
    checked: dict = {}
    baseline = against if against in ("starter", "starter_eager") else None
    if mode != "end_to_end":
        sides, counter, answers = _steady_sides(lab, against, backend, calls, outputs, feeds)
        if baseline is not None and not _history_free(feeds, answers[baseline]):
            checked["skipped"] = "the starting file's answers depend on what it was asked before"
    for attempt in range(2):
        repeats = p.get("repeats", 15) * (attempt + 1)
        if mode == "end_to_end":
            times, graphs = _end_to_end(lab, against, backend, p.get("rounds", 2) * (attempt + 1), calls, outputs, feeds, checked)
        else:
            chosen = random.SystemRandom().sample(range(repeats), min(ANSWER_CHECKS, repeats)) if attempt == 0 else []
            with torch.no_grad():  # the retry runs warm sides: no second warm-up
                times = timing.interleaved(sides, p.get("warmup", 3) if attempt == 0 else 0, repeats,
                                           min_seconds=p.get("min_repeat_ms", 25) / 1e3, prepare=feeds.prepare,
                                           after_repeat=compare_answers(feeds, answers, baseline, chosen, checked))
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
        "answers": {"checked": int(checked.get("checked", 0)), **({"differ": str(checked["differ"])[:500]} if checked.get("differ") else {}),
                    **({"skipped": checked["skipped"]} if checked.get("skipped") else {})},
        **({"fingerprints": outputs} if outputs is not None else {})}


def describe_value(value):
    return object_marker(value)

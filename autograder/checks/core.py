"""The decisions of the kinds every chapter uses, and the helpers of every decision.

Runs in the judge, from plain data: the common measurement (``evidence.measurement``), each
check's facts, and what the reference child computed. A message says what was measured, what was
expected, and where the course teaches the fix.
"""

from __future__ import annotations

import math

from autograder.checks.evidence import Evidence
from autograder.format.fingerprints import fingerprints_differ
from autograder.checks.facts import Bool, Either, Float, Int, ListOf, Maybe, Plain, Record, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult, short_path

OBJECT = "__object__"  # what the learner's process sends for a value that is not plain data


def _lesson(spec, exercise) -> str:
    return f"Lesson section {spec.section} ({exercise.rel(exercise.lesson)}) teaches this."


def _where(site: dict) -> str:
    if not site.get("file"):
        return ""
    code = (site.get("code") or "").split("  #")[0].strip()
    code = f"  `{code}`" if code else ""
    return f"{_short(site['file'])}:{site.get('line')} in {site.get('function', '?')}(){code}"


_short = short_path


def describe_failure(error: dict) -> str:
    where = _where(error)
    first = (error.get("message") or "").splitlines()[0] if error.get("message") else ""
    if error["kind"] == "graph_break":
        return f"Graph break{' at ' + where if where else ''}: {first}"
    if error["kind"] == "recompile_limit":
        return f"Hit the recompile limit: {error['message']}"
    if error["kind"] == "exception":
        return f"Your code raised {first}" + (f" at {where}" if where else "")
    return f"The compiler failed: {first}"


def measure_failed(spec, ev: Evidence) -> CheckResult | None:
    """A measure part that raised in the learner's process: the check fails, saying so."""
    problem = ev.facts.get("measure_failed") if isinstance(ev.facts, dict) else None
    if problem:
        message = f"The grader could not measure this: {problem}."
        if "InductorError" in str(problem):
            # A fix that compiles with the default backend where the grader hands it one (red-team M4).
            message += (" Inductor ran inside your code's own compile and failed there. Where the grader hands your code a "
                        "backend to compile with (an argument such as `backend`), compile with that one, not the default.")
        return CheckResult.outcome(spec, False, f"{message} {_lesson(spec, ev.exercise)}")
    return None


@decides("compiles")
def check_compiles(spec, ev: Evidence) -> CheckResult:
    error = ev.measurement.error
    if error is None:
        mode = "fullgraph=True" if ev.exercise.compile.get("fullgraph") else "torch.compile"
        return CheckResult.outcome(spec, True, f"All {ev.measurement.calls} calls ran under {mode}.")
    return CheckResult.outcome(spec, False, f"{describe_failure(error)}. {_lesson(spec, ev.exercise)}")


def _stopped_early(m, ev: Evidence) -> str | None:
    """Why a count cannot be judged when the calls did not all run cleanly: it covers only the calls
    before the stop (a storm that would have come later, a graph never reached, is not in it)."""
    if m.error is None:
        return None
    return (f"No complete run: the calls stopped at call {m.calls} of {ev.calls or m.calls} (the first failed check says "
            f"why), so this count covers only the calls before that and cannot show the whole schedule's.")


@decides("graphs")
def check_graphs(spec, ev: Evidence) -> CheckResult:
    m, p = ev.measurement, spec.params
    wanted = []
    ok = True
    if "equal" in p:
        ok &= m.graphs == p["equal"]
        wanted.append(f"exactly {p['equal']}")
    if "min" in p:
        ok &= m.graphs >= p["min"]
        wanted.append(f"at least {p['min']}")
    if "max" in p:
        ok &= m.graphs <= p["max"]
        wanted.append(f"at most {p['max']}")
    message = f"{m.graphs} graph(s) compiled over {m.calls} call(s); expected {' and '.join(wanted)}."
    stopped = _stopped_early(m, ev)
    if stopped:
        ok = False
        message += " " + stopped
    if not ok and m.break_sites:
        message += " First break: " + _where(m.break_sites[0]) + " — " + m.break_sites[0]["reason"].splitlines()[0] + "."
    if not ok and m.recompiles:
        message += f" {m.recompiles} of them are recompiles" + (f"; first failing guard: {m.recompile_reasons[0]}" if m.recompile_reasons else "") + "."
    if not ok:
        message += " " + _lesson(spec, ev.exercise)
    return CheckResult.outcome(spec, ok, message)


@decides("graph_breaks")
def check_graph_breaks(spec, ev: Evidence) -> CheckResult:
    m = ev.measurement
    allowed = spec.params.get("allowed", [])
    limit = spec.params.get("max", 0)
    if m.error and m.error["kind"] == "graph_break":
        return CheckResult.outcome(spec, False, f"{describe_failure(m.error)}. {_lesson(spec, ev.exercise)}")
    # An allowed entry is Dynamo's break type (exact, e.g. "Unsupported Tensor.backward() call") or, as
    # before break types were recorded, a substring of the reason.
    unexpected = [b for b in m.break_sites if not any(a == b.get("type") or a in b["reason"] for a in allowed)]
    ok = m.graph_breaks <= limit and not unexpected
    if ok:
        return CheckResult.outcome(spec, True, f"{m.graph_breaks} graph break(s); at most {limit} allowed.")
    worst = (unexpected or m.break_sites or [{"reason": "(no site recorded)"}])[0]
    return CheckResult.outcome(spec, False, f"{m.graph_breaks} graph break(s), at most {limit} allowed. "
                               f"Break at {_where(worst)}: {worst['reason'].splitlines()[0]}. {_lesson(spec, ev.exercise)}")


@decides("recompiles")
def check_recompiles(spec, ev: Evidence) -> CheckResult:
    m = ev.measurement
    limit = spec.params.get("max", 0)
    ok = m.recompiles <= limit and not (m.error and m.error["kind"] == "recompile_limit")
    message = f"{m.recompiles} recompile(s) over {m.calls} call(s); at most {limit} allowed."
    stopped = _stopped_early(m, ev) if ok else None
    if stopped:
        return CheckResult.outcome(spec, False, f"{message} {stopped}")
    if not ok:
        if m.resets:
            message += (f" {m.resets} of them compiled a function again after your code reset Dynamo during the calls "
                        "(torch._dynamo.reset() or torch.compiler.reset()): that throws away everything compiled, so the "
                        "next call compiles from scratch and pays the whole compile again.")
        if m.recompile_reasons:
            message += f" The guard that failed first: {m.recompile_reasons[0]}."
        if m.error:
            message += f" {describe_failure(m.error)}."
        message += " " + _lesson(spec, ev.exercise)
    return CheckResult.outcome(spec, ok, message)


@decides("compiled_calls")
def check_compiled_calls(spec, ev: Evidence) -> CheckResult:
    m = ev.measurement
    least = spec.params.get("min_graph_runs")  # per call: compiled code entered at least this often (a region per block)
    short = [(i, runs) for i, runs in enumerate(m.graph_runs) if least and runs < least]
    ok = m.compiled_calls == ev.calls and m.error is None and not m.resets and not short
    message = f"{m.compiled_calls} of {ev.calls} calls ran compiled code."
    if short and m.compiled_calls == ev.calls and m.error is None and not m.resets:
        first, runs = short[0]
        message += (f" But call {first + 1} entered compiled code only {runs} time(s), and each call must enter it at least "
                    f"{least} times ({len(short)} call(s) fell short): the rest of its work ran eagerly.")
    if m.resets:
        message += (f" Your code reset Dynamo during the calls (torch._dynamo.reset() or torch.compiler.reset()), and "
                    f"{m.resets} compile(s) came after a reset: the calls ran compiled only because each compiled from "
                    "scratch again, paying the whole compile every time. Keep what was compiled across calls.")
    elif m.error is not None and m.calls < ev.calls:
        message += f" The calls stopped at call {m.calls}, which raised ({describe_failure(m.error)}); the later ones never ran."
    elif m.error is not None:
        message += f" A call raised ({describe_failure(m.error)})."
    elif m.unfed_calls or m.partly_fed_calls:
        message += f" {unfed_calls_message(m.unfed_calls, ev.exercise, m.partly_fed_calls)}"
    elif not ok:
        message += " The others ran eagerly (a recompile limit, a skipped frame or a stance sends calls back to Python without any error)."
    if not ok:
        message += f" {_lesson(spec, ev.exercise)}"
    return CheckResult.outcome(spec, ok, message)


def unfed_calls_message(unfed: list, exercise, partly: list = ()) -> str:
    """Calls in which the driver ran compiled code but returned, in all or in part, something else
    (probe.measurement.depends_on_compiled)."""
    def numbered(calls):
        return f"call{'s' if len(calls) > 1 else ''} " + ", ".join(str(i + 1) for i in calls[:8]) + (", ..." if len(calls) > 8 else "")

    said = []
    if unfed:
        said.append(f"In {numbered(unfed)} your `{exercise.driver}` called the compiled `{exercise.entry}`, but what it returned "
                    "did not come from that call: it was the same when the grader made the compiled code return garbage.")
    if partly:
        call, computed, total = partly[0]
        said.append(f"In {numbered([p[0] for p in partly])} {'only ' if not unfed else ''}part of what your `{exercise.driver}` "
                    f"returned came from the compiled `{exercise.entry}` ({computed} of the {total} values of call {call + 1} "
                    "stayed the same when the grader made the compiled code return garbage).")
    return " ".join(said) + (f" That work was done outside the compiled function (the plain `{exercise.entry}`, or a copy of its "
                             "code); return what the compiled function computes.")


def _kind_of(value) -> str:
    if isinstance(value, dict) and OBJECT in value:
        return str(value[OBJECT])
    return type(value).__name__


# The tolerances ``correct`` uses when an exercise sets none: float32's for every answer but a
# double-precision tensor, whose answer must keep double precision. With float32's 1e-5 a fix that
# computed a float64 request in float32 and cast the answer back (errors near 1e-7) passed as right.
DEFAULT_TOLERANCE = (1e-5, 1e-6)
DOUBLE_TOLERANCE = (1e-9, 1e-12)


def compare(actual, expected, rtol: float | None, atol: float | None, path: str = "output") -> str | None:
    """None when ``actual`` matches ``expected`` (both plain data); otherwise where and how they differ.
    ``rtol``/``atol`` None: the defaults by precision (``DEFAULT_TOLERANCE``, ``DOUBLE_TOLERANCE``)."""
    import torch

    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return f"{path} should be a tensor, got {_kind_of(actual)}"
        if actual.shape != expected.shape:
            return f"{path} has shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
        if actual.dtype != expected.dtype:
            return f"{path} has dtype {actual.dtype}, expected {expected.dtype}"
        if rtol is None or atol is None:
            rtol, atol = DOUBLE_TOLERANCE if expected.dtype in (torch.float64, torch.complex128) else DEFAULT_TOLERANCE
        if actual.dtype.is_complex or expected.dtype.is_complex:
            same = torch.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = torch.allclose(actual.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True)
        if not same:
            worst = (actual.double() - expected.double()).abs().nan_to_num(math.inf).max().item() if actual.numel() else 0.0
            return f"{path} differs from the reference (largest difference {worst:.3g})"
        return None
    if isinstance(expected, dict) and OBJECT in expected:
        return None if actual == expected else f"{path} should be a {expected[OBJECT]}, got {_kind_of(actual)}"
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"{path} should be a {type(expected).__name__} of {len(expected)} items"
        for i, (a, e) in enumerate(zip(actual, expected)):
            problem = compare(a, e, rtol, atol, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return f"{path} should be a dict with keys {sorted(expected, key=str)}"
        for key in expected:
            problem = compare(actual[key], expected[key], rtol, atol, f"{path}[{key!r}]")
            if problem:
                return problem
        return None
    if isinstance(expected, float):
        if rtol is None or atol is None:  # a Python float is most often a float32 tensor's .item()
            rtol, atol = DEFAULT_TOLERANCE
        ok = type(actual) in (int, float) and math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol)
        return None if ok else f"{path} is {_shown(actual)}, expected {expected!r}"
    same = type(actual) is type(expected) and actual == expected
    return None if same else f"{path} is {_shown(actual)}, expected {expected!r}"


def _shown(value) -> str:
    if isinstance(value, dict) and OBJECT in value:
        return f"a {value[OBJECT]}"
    text = repr(value)  # plain data the judge built itself
    return text if len(text) <= 200 else text[:200] + "..."


@decides("correct")
def check_correct(spec, ev: Evidence) -> CheckResult:
    m = ev.measurement
    rtol, atol = spec.params.get("rtol"), spec.params.get("atol")  # None: by each answer's precision (compare)
    outputs = list(m.outputs)
    for number, (actual, expected) in enumerate(zip(outputs, ev.expected), start=1):
        if m.error and number == len(outputs) and isinstance(actual, dict) and actual.get(OBJECT) == "exception":
            return CheckResult.outcome(spec, False, f"Call {number} of {ev.calls} did not return, so nothing could be compared "
                                       f"({m.error['kind'].replace('_', ' ')}).")
        problem = compare(actual, expected, rtol, atol)
        if problem:
            return CheckResult.outcome(spec, False, f"Call {number} of {ev.calls} (inputs the grader drew): {problem}. "
                                       "Results are compared with the reference solution, not with your eager run.")
    if len(outputs) < len(ev.expected):
        return CheckResult.outcome(spec, False, f"Only {len(outputs)} of {len(ev.expected)} calls ran.")
    return CheckResult.outcome(spec, True, f"All {len(ev.expected)} outputs match the reference on the grader's inputs.")


# -- answers ----------------------------------------------------------------------------------------

def normalised(value):
    """An answer as the judge compares it: text without surrounding whitespace, numbers by value
    (3, 3.0 and " 3 " are one answer; True is not 1), sequences item by item, mappings by key."""
    if isinstance(value, bool) or value is None:
        return ("atom", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            return ("text", text)
        return ("number", number) if math.isfinite(number) else ("text", text)
    if isinstance(value, (list, tuple)):
        return ("sequence", tuple(normalised(item) for item in value))
    if isinstance(value, dict):
        if OBJECT in value:
            return ("object", id(value))  # equal to nothing but itself
        return ("mapping", tuple(sorted((str(k), normalised(v)) for k, v in value.items())))
    return ("object", id(value))  # a tensor or anything else: compared by nothing but identity


def same_answer(given, truth) -> bool:
    a, b = normalised(given), normalised(truth)
    if a[0] == b[0] == "number":
        return math.isclose(a[1], b[1], rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _advice(truths: list) -> str:
    """What to do, fitted to the kind of answer: counts are counted, text is read off what the experiment prints."""
    flat = [t for t in truths if t is not None]
    if flat and all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in flat):
        return "Run the experiment in the lesson and count."
    if flat and all(isinstance(t, str) for t in flat):
        return "Run the experiment and read the answer off what it reports (surrounding spaces do not matter; the words do)."
    return "Run the experiment in the lesson and compare with what it reports."


ANSWERS_FACTS = Record({}, {"given": Plain(), "defined": Bool(), "function_defined": Bool(),
                            "variants": ListOf(Either(Record({"value": Plain()}), Record({"raised": Text(1000)})), 1000),
                            "frames_compiled": Int(0, 10**9), "measure_failed": Text(2000)})


@decides("answers", facts=ANSWERS_FACTS)
def check_answers(spec, ev: Evidence) -> CheckResult:
    p = spec.params
    lesson = _lesson(spec, ev.exercise)
    if p.get("variants") and not (p.get("constant") and p.get("constant_truth")):
        return _check_variants(spec, ev, lesson)
    name = p.get("constant", "ANSWERS")
    given = ev.facts.get("given")
    truth = ev.reference.get("truth")
    if not isinstance(truth, dict):
        return CheckResult.outcome(spec, False, "The grader's own measurement gave no table of answers (a fault of the exercise).")
    if not isinstance(given, dict) or OBJECT in given:
        return CheckResult.outcome(spec, False, f"Define {name} as a dict with the keys {sorted(truth, key=str)}.")
    off = [k for k in truth if not same_answer(given.get(k), truth[k])]
    missing = [k for k in off if given.get(k) is None]
    wrong = [k for k in off if k not in missing]
    if not missing and not wrong:
        if p.get("variants"):
            return _check_variants(spec, ev, lesson, examples=len(truth))
        return CheckResult.outcome(spec, True, f"All {len(truth)} answers in {name} match what the grader measured.")
    parts = []
    if missing:
        parts.append(f"still unanswered: {', '.join(map(str, missing))}")
    if wrong:
        parts.append(f"not what the grader measured: {', '.join(map(str, wrong))}")
    return CheckResult.outcome(spec, False, f"{name}: {'; '.join(parts)}. {_advice([truth[k] for k in off])} {lesson}")


def _check_variants(spec, ev: Evidence, lesson: str, examples: int = 0) -> CheckResult:
    function = spec.params["function"]
    truths = ev.reference.get("variant_truths") or []
    variants = ev.reference.get("variants") or []
    if not ev.facts.get("function_defined"):
        return CheckResult.outcome(spec, False, f"Define a function `{function}`: the grader calls it with parameters it draws "
                                   f"afresh on each grading ({len(truths)} this time) and compares with what it measures itself.")
    got = ev.facts.get("variants") or []
    compiled = ev.facts.get("frames_compiled") or 0
    if compiled:
        return CheckResult.outcome(spec, False, f"`{function}` compiled code while it answered ({compiled} frame(s) went through "
                                   "torch.compile): it ran the experiment instead of predicting it. Write the rule you found "
                                   f"as plain Python that computes the answer from the parameters. {lesson}")
    for number, truth in enumerate(truths, start=1):
        seen = got[number - 1] if number - 1 < len(got) else None
        shown = ", ".join(f"{k}={v!r}" for k, v in (variants[number - 1] if number - 1 < len(variants) else {}).items())
        if seen is None or "raised" in seen:
            why = seen["raised"] if seen else "it was not called"
            return CheckResult.outcome(spec, False, f"`{function}({shown})` raised {why}. {lesson}")
        if not same_answer(seen["value"], truth):
            return CheckResult.outcome(spec, False, f"`{function}({shown})` returned {_shown(seen['value'])}; the grader measured "
                                       f"{truth!r} for these parameters (drawn afresh on each grading, so an answer copied from "
                                       f"another run does not carry over). {_advice([truth])} {lesson}")
    also = f"All {examples} answers in {spec.params['constant']} match, and " if examples else ""
    return CheckResult.outcome(spec, True, f"{also}`{function}` agrees with what the grader measured on all {len(truths)} "
                               "parameter sets it drew.")


# -- speed ------------------------------------------------------------------------------------------

SPEED_FACTS = Record({}, {"skipped": Text(40), "not_run": Bool(), "graphs": Int(0, 10**6), "measure_failed": Text(2000),
                          "timing": Record({"ratio": Float(), "baseline_ms": Float(), "candidate_ms": Float(), "repeats": Int(0, 10**6)},
                                           {"ratio_q1": Float(), "ratio_q3": Float(), "eager_ratio": Float(), "eager_q1": Float(),
                                            "eager_q3": Float(), "eager_ms": Float(), "starter_ms": Float(), "starter_eager_ms": Float(),
                                            "spreads": ListOf(Float(), 2), "unreliable": Bool(), "load": ListOf(Float(), 2),
                                            "cores": Int(1, 10**5), "threads": Int(1, 10**5), "against": Text(20), "mode": Text(20)}),
                          "answers": Record({"checked": Int(0, 10**6)}, {"differ": Text(600), "skipped": Text(200)}),
                          "fingerprints": ListOf(ListOf(Record({}, {"shape": ListOf(Int(0, 2**40), 16), "dtype": Text(40), "sum": Float(),
                                                                     "abs": Float(), "nans": Int(0, 2**62), "picks": ListOf(Float(), 64),
                                                                     "value": Float(), "type": Text(100)}), 257), 10_000)})
AGAINST = {"eager": "eager", "starter": "the compiled starter", "starter_eager": "the starting code run eagerly"}


def _per_device(thresholds, device):
    return thresholds.get(device) if isinstance(thresholds, dict) else thresholds


def _faster(ratio: float, than: str) -> str:
    """A speed ratio in words: "1.86x faster than X", or, below 1, "1.37x slower than X"."""
    if ratio >= 1 or ratio <= 0:
        return f"{ratio:.2f}x faster than {than}"
    return f"{1 / ratio:.2f}x slower than {than}"


def _verdict(ratio: float, low: float, high: float, unreliable: bool, threshold: float) -> bool | None:
    """True/False when the timing decides; None when the repeats scattered so widely that the threshold
    lies between their quartiles (the measurement, not the code, is in doubt)."""
    if not unreliable:
        return ratio >= threshold
    if low >= threshold:
        return True
    if high < threshold:
        return False
    return None


def answers_differ(spec, ev: Evidence, where: str, what: str) -> CheckResult | None:
    """The failure when the timing found the fix answering its fresh inputs otherwise than the
    starting file (``facts["answers"]["differ"]``: an answer remembered from other inputs), or None."""
    differ = (ev.facts.get("answers") or {}).get("differ")
    if not differ:
        return None
    return CheckResult.outcome(spec, False, f"{where} (the schedule's values, each nudged by up to 3%), your code did not "
                               f"answer as the starting file does ({differ}): {what} counts only for answers computed from "
                               f"each call's own inputs, not remembered from earlier calls. {_lesson(spec, ev.exercise)}")


@decides("speed", facts=SPEED_FACTS, timing=lambda facts: dict(facts.get("timing") or {}))
def check_speed(spec, ev: Evidence) -> CheckResult:
    device = ev.device
    if ev.facts.get("skipped") == "cuda" or ("cuda" in spec.needs and device != "cuda"):
        return CheckResult.skipped(spec, "Skipped: this speed check needs a CUDA GPU and none is present. It was not passed, only not run.")
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if ev.measurement.error or ev.facts.get("not_run"):
        return CheckResult.outcome(spec, False, "Not timed: the code did not compile and run cleanly (see the other checks).")
    p = spec.params
    threshold = _per_device(p["min_ratio"], device)
    if threshold is None:
        return CheckResult.skipped(spec, f"Skipped: no speed threshold is set for {device}.")
    timed = ev.facts["timing"]
    against = p.get("against", "eager")
    if "fingerprints" in ev.reference:
        wrong = fingerprints_differ(ev.reference["fingerprints"], ev.facts.get("fingerprints") or [])
        if wrong:
            return CheckResult.outcome(spec, False, f"On the large inputs this check times, your compiled code's answers are not "
                                       f"the reference's ({wrong}): a speed-up counts only for the right answers. "
                                       f"{_lesson(spec, ev.exercise)}")
    differ = answers_differ(spec, ev, "On the fresh inputs every timed pass gets", "a speed-up")
    if differ:
        return differ
    if not ev.facts.get("graphs"):
        return CheckResult.outcome(spec, False, f"No graph was compiled, so there is nothing compiled to time against {AGAINST[against]}: "
                                   f"code that runs eagerly is not a compiled speed-up. {_lesson(spec, ev.exercise)}")
    unreliable = bool(timed.get("unreliable"))
    low, high = timed.get("ratio_q1", timed["ratio"]), timed.get("ratio_q3", timed["ratio"])
    verdicts = [(f"{_faster(timed['ratio'], AGAINST[against])} (needs {threshold}x faster on {device})",
                 _verdict(timed["ratio"], low, high, unreliable, threshold))]
    eager_threshold = _per_device(p.get("eager_min_ratio"), device)
    if against != "eager" and "eager_ratio" in timed:
        said = _faster(timed["eager_ratio"], "eager")
        if eager_threshold is not None:
            verdicts.append((f"{said} (needs {eager_threshold}x faster on {device})",
                             _verdict(timed["eager_ratio"], timed.get("eager_q1", timed["eager_ratio"]),
                                      timed.get("eager_q3", timed["eager_ratio"]), unreliable, eager_threshold)))
        else:
            verdicts.append((said, True))
    shown = [f"yours {timed['candidate_ms']:.3f} ms"]
    if "starter_ms" in timed:
        shown.append(f"the compiled starter {timed['starter_ms']:.3f} ms")
    if "starter_eager_ms" in timed:
        shown.append(f"the starting code run eagerly {timed['starter_eager_ms']:.3f} ms")
    if "eager_ms" in timed:
        shown.append(f"eager {timed['eager_ms']:.3f} ms")
    how = (f"whole schedule from a fresh compiler state, compile included, median of {timed['repeats']} round(s)"
           if timed.get("mode") == "end_to_end" else f"one pass of the schedule, median of {timed['repeats']} interleaved repeats")
    load = timed.get("load")
    machine = f" Load average {max(load):.1f} on {timed.get('cores', '?')} core(s)" if load else ""
    machine += f", timed on {timed['threads']} thread(s)." if "threads" in timed else "."
    spreads = timed.get("spreads") or []
    if len(spreads) > 1:
        machine += f" The first timing scattered (spread {spreads[0]:.2f}); it was repeated with twice the repeats."
    message = f"{'; '.join(v[0] for v in verdicts)}. Times ({how}): {', '.join(shown)}.{machine}"
    answers = ev.facts.get("answers") or {}
    if answers.get("checked"):
        message += (f" Every timed pass ran on fresh inputs; on {answers['checked']} of them your answers matched the starting "
                    "file's.")
    elif answers.get("skipped"):
        message += f" Every timed pass ran on fresh inputs; the answers were not compared: {answers['skipped']}."
    if any(v[1] is False for v in verdicts):
        return CheckResult.outcome(spec, False, f"{message} {_lesson(spec, ev.exercise)}")
    if any(v[1] is None for v in verdicts):
        return CheckResult.not_judged(spec, f"the repeats scattered too widely to tell (spread {spreads[-1]:.2f} of the "
                                      f"ratios, their quartiles {low:.2f}x to {high:.2f}x around the threshold). {message}")
    return CheckResult.outcome(spec, True, message)

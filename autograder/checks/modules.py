"""Decisions about what a learner's function builds or chooses (measure parts: ``autograder.sandbox.kinds.modules``).

- ``same_module``: ``prepare(model, backend)`` returns the model itself, still of the file's
  class, and it runs compiled code with the backend it was given (``model.compile()`` compiles in
  place; ``torch.compile(model)`` returns a wrapper);
- ``checkpoint``: the model ``prepare`` returns runs compiled, and the checkpoint ``save`` writes
  from it is one a plain instance of the class loads strictly: the same keys and shapes as a
  plain model's state_dict (the reference child built one, seeded as the learner's), holding the
  weights of the model that was saved (the measure moves that model's weights after ``prepare`` by
  shifts drawn from the grading's seed, so a checkpoint of a freshly built model does not match),
  and the compiled model computes what the plain one does;
- ``resume``: training continues from any checkpoint of the folder: for a checkpoint written from
  the wrapper ``torch.compile(model)`` returns (every key ``_orig_mod.`` + the model's) and for one
  written from the model itself, each holding weights drawn from the grading's seed, a fresh model
  through ``prepare`` and then ``resume(model, checkpoint)`` runs compiled and computes what a
  plain model holding those weights does;
- ``limit_in_effect``: the recompile limit in effect for the graded function (``COMPILE_OPTIONS``'
  ``recompile_limit``, else ``torch._dynamo.config.recompile_limit``) lies in ``[min, max]``;
- ``bisect``: ``CompilerBisector`` run with the learner's test function (``function``) finds what
  the grader's own bisection found (the truth of the ``answers`` check named by ``agree_with``):
  backend, subsystem, bisect number, and the operator named in its debug info.
"""

from __future__ import annotations

import re

from autograder.checks.core import OBJECT, _lesson, _shown, compare, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, Either, Int, ListOf, Maybe, Plain, Record, Text
from autograder.checks.registry import decides
from autograder.format.result import CheckResult


@decides("same_module", facts=Record({"missing": Bool()}, {"same_class": Bool(), "same_object": Bool(), "type": Text(200),
                                                           "ran_compiled": Bool(), "graphs": Int(0, 10**6), "measure_failed": Text(2000)}))
def check_same_module(spec, ev: Evidence) -> CheckResult:
    p, f = spec.params, ev.facts
    model, prepare = p.get("model", "Net"), p.get("prepare", "prepare")
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if f.get("missing"):
        return CheckResult.outcome(spec, False, f"Your file must keep `{model}` and `{prepare}`: the grader calls {prepare}({model}(), backend).")
    if not f.get("same_class"):
        return CheckResult.outcome(spec, False, f"{prepare} returns an object of type {f.get('type')}, not a {model}: "
                                   f"`isinstance(model, {model})` is False and every attribute goes through a wrapper. "
                                   "torch.compile(model) returns a new object; model.compile() compiles the model itself. "
                                   f"{_lesson(spec, ev.exercise)}")
    if not f.get("ran_compiled"):
        return CheckResult.outcome(spec, False, f"{prepare} returns the {model}, but it ran no compiled code: compile it with the "
                                   f"backend {prepare} is given. {_lesson(spec, ev.exercise)}")
    return CheckResult.outcome(spec, True, f"{prepare} returns the {model} itself ({f.get('graphs', 0)} graph), compiled in place.")


@decides("checkpoint", facts=Record({"missing": Bool()}, {"ran_compiled": Bool(), "output": Plain(), "saved": Plain(),
                                                          "measure_failed": Text(2000)}))
def check_checkpoint(spec, ev: Evidence) -> CheckResult:
    p, f = spec.params, ev.facts
    model, prepare = p.get("model", "Net"), p.get("prepare", "prepare")
    lesson = _lesson(spec, ev.exercise)
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if f.get("missing"):
        return CheckResult.outcome(spec, False, f"Your file must keep `{model}` and `{prepare}`: the grader calls {prepare}({model}(), backend).")
    if not f.get("ran_compiled"):
        return CheckResult.outcome(spec, False, f"The model {prepare}() returns ran no compiled code: {prepare} must compile it with "
                                   f"the backend it is given. {lesson}")
    saved, state = f.get("saved"), ev.reference.get("state") or {}
    if not isinstance(saved, dict) or OBJECT in saved:
        return CheckResult.outcome(spec, False, f"The checkpoint holds {_shown(saved)}, not a state_dict. {lesson}")
    keys, wanted = list(saved), list(state)
    if set(keys) != set(wanted):
        return CheckResult.outcome(spec, False, f"A plain {model} cannot load the checkpoint strictly: the file's keys are {keys[:2]}..., "
                                   f"a {model}'s are {wanted[:2]}...: torch.compile(model) wraps the model, and the wrapper's "
                                   f"state_dict names every entry `_orig_mod.` + the model's name. {lesson}")
    for key in wanted:
        problem = compare(saved[key], state[key], 1e-5, 1e-6, path=f"the checkpoint's {key}")
        if problem:
            return CheckResult.outcome(spec, False, f"The checkpoint loads into a plain {model}, but {problem}: the loaded {model} "
                                       f"would compute something else than the model that was saved. {lesson}")
    problem = compare(f.get("output"), ev.reference.get("output"), 1e-5, 1e-6, path="the compiled model's output")
    if problem:
        return CheckResult.outcome(spec, False, f"The checkpoint loads, but {problem} (compared with a plain {model} holding the "
                                   f"same weights). {lesson}")
    return CheckResult.outcome(spec, True, f"A plain {model} loads the checkpoint (keys {wanted[:2]}...) and computes what the "
                               "compiled model computed.")


RESUMED = Either(Record({"raised": Text(1000)}), Record({"output": Plain(), "ran_compiled": Bool()}))


@decides("resume", facts=Record({"missing": Bool()}, {"results": ListOf(RESUMED, 2), "measure_failed": Text(2000)}))
def check_resume(spec, ev: Evidence) -> CheckResult:
    p, f = spec.params, ev.facts
    model, prepare, resume = p.get("model", "Net"), p.get("prepare", "prepare"), p.get("resume", "resume")
    lesson = _lesson(spec, ev.exercise)
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if f.get("missing"):
        return CheckResult.outcome(spec, False, f"Your file must keep `{model}`, `{prepare}` and `{resume}`: the grader calls "
                                   f"{resume}({prepare}({model}(), backend), checkpoint).")
    outputs, keys, origins = (ev.reference.get(name) or [] for name in ("outputs", "keys", "origins"))
    results = f.get("results") or []
    if not len(results) == len(outputs) == len(keys) == len(origins):
        return CheckResult.outcome(spec, False, "The grader's checkpoints and your results do not match up (a fault of the exercise).")
    for origin, names, result, expected in zip(origins, keys, results, outputs):
        where = f"a checkpoint written from {origin} (keys {names}...)"
        if "raised" in result:
            return CheckResult.outcome(spec, False, f"Resuming from {where} raised {result['raised'].rstrip('.')}. {lesson}")
        if not result.get("ran_compiled"):
            return CheckResult.outcome(spec, False, f"After resuming from {where}, the model {prepare}() returned ran no compiled "
                                       f"code. {lesson}")
        problem = compare(result.get("output"), expected, 1e-5, 1e-6, path="the resumed model's output")
        if problem:
            return CheckResult.outcome(spec, False, f"After resuming from {where}, {problem}: the model does not hold the "
                                       f"checkpoint's weights (compared with a plain {model} that does). {lesson}")
    return CheckResult.outcome(spec, True, f"Training resumes from checkpoints of each origin ({'; '.join(origins)}), "
                               "with their weights, compiled.")


@decides("limit_in_effect", facts=Record({"per_function": Plain(), "config": Plain()}, {"measure_failed": Text(2000)}))
def check_limit_in_effect(spec, ev: Evidence) -> CheckResult:
    low, high = spec.params.get("min", 1), spec.params.get("max", 10**9)
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    per_function = ev.facts.get("per_function")
    limit = per_function if per_function is not None else ev.facts.get("config")
    where = "COMPILE_OPTIONS['recompile_limit']" if per_function is not None else "torch._dynamo.config.recompile_limit"
    if type(limit) is not int or limit < low:
        return CheckResult.outcome(spec, False, f"The limit in effect ({where} = {_shown(limit)}) is below the {low} graphs "
                                   f"`{ev.exercise.entry}` needs. {_lesson(spec, ev.exercise)}")
    if limit > high:
        return CheckResult.outcome(spec, False, f"The limit in effect ({where} = {limit}) is more than {high}: a limit that high no "
                                   f"longer stops a real recompile storm. {_lesson(spec, ev.exercise)}")
    return CheckResult.outcome(spec, True, f"The limit in effect ({where} = {limit}) fits: at least {low}, at most {high}.")


def bisection_summary(result: dict | None) -> dict:
    """A bisection as four answers: backend, subsystem, bisect number, and the operator of ``op='...'`` in its debug info."""
    if result is None:
        return {"backend": None, "subsystem": None, "bisect_number": None, "operator": None}
    found = re.search(r"op='([^']+)'", result.get("debug_info") or "")
    return {"backend": result.get("backend"), "subsystem": result.get("subsystem"), "bisect_number": result.get("bisect_number"),
            "operator": found[1] if found else None}


BISECT_RESULT = Record({"backend": Plain(), "subsystem": Plain(), "bisect_number": Plain(), "debug_info": Text(4000)})


@decides("bisect", facts=Record({"missing": Bool()}, {"raised": Text(1000), "result": Maybe(BISECT_RESULT), "measure_failed": Text(2000),
                                                     "control": Maybe(BISECT_RESULT), "control_raised": Text(1000),
                                                     "control_unavailable": Text(100)}))
def check_bisect(spec, ev: Evidence) -> CheckResult:
    function = spec.params.get("function", "test_fn")
    lesson = _lesson(spec, ev.exercise)
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    if ev.facts.get("missing"):
        return CheckResult.outcome(spec, False, f"Define {function}(): the grader bisects with it.")
    if ev.facts.get("raised"):
        return CheckResult.outcome(spec, False, f"Bisecting with your {function} raised {ev.facts['raised']}. {lesson}")
    wanted = (ev.others.get(spec.params.get("agree_with", "")) or {}).get("truth")
    if not isinstance(wanted, dict):
        return CheckResult.outcome(spec, False, "The grader's own bisection is missing (a fault of the exercise).")
    got = bisection_summary(ev.facts.get("result"))
    if all(got.get(key) == wanted.get(key) for key in ("backend", "subsystem", "bisect_number", "operator")):
        control = spec.params.get("control")
        if control and ev.facts.get("control_raised"):
            return CheckResult.outcome(spec, False, f"Bisecting with your {function} finds {got}, as the grader's own bisection does; "
                                       f"but with the planted decompositions of {control}:: taken out, where the compiled block gives "
                                       f"what it gives eagerly, bisecting with it raised {ev.facts['control_raised']}. {lesson}")
        if control and ev.facts.get("control") is not None:
            again = bisection_summary(ev.facts["control"])
            return CheckResult.outcome(spec, False, f"Bisecting with your {function} finds {got}, as the grader's own bisection does; "
                                       f"but the grader also took the planted decompositions of {control}:: out of Inductor's table, "
                                       f"so that nothing is wrong any more, and bisecting with your {function} still found {again}. "
                                       f"A {function} must answer from comparing the compiled block with the eager one, not from "
                                       f"the bisector's state or a list of answers. {lesson}")
        if control and "control" not in ev.facts:
            return CheckResult.outcome(spec, False, "The grader's control bisection did not run "
                                       f"({ev.facts.get('control_unavailable') or 'no result'}): a fault of the exercise.")
        return CheckResult.outcome(spec, True, f"Bisecting with your {function} finds {got}, as the grader's own bisection does"
                                   + (f", and finds nothing once the planted decompositions of {control}:: are taken out." if control else "."))
    return CheckResult.outcome(spec, False, f"Bisecting with your {function} finds {got}; the grader's own bisection finds {wanted}. "
                               f"A {function} that reuses compiled code answers for an earlier configuration, and the bisector goes "
                               f"astray. {lesson}")

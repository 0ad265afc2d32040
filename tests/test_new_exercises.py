"""What the new exercises (issue 21) claim, beyond "the starter fails, the solution passes".

tests/test_exercises.py proves each starter fails for its reason and each solution passes, and
`dev check` (tests/test_variants.py) grades every FAIR and WRONG variant. Here:

- the two new check kinds decide from plain data alone, each outcome with a true message
  (``refuses``: checks/refusal.py; ``warm_start``: checks/caches.py);
- the hook exercise's starter really serves a stale answer once a hook is attached, and the
  solution's answer follows every attach and detach (the grader's `correct` check alone would not
  say why the starter fails);
- the inputs `top_scores_by_length` must refuse are refused by its own eager reference, so the
  check asks for what the original code did;
- the break `scorer_one_graph` is about is reported two calls below the compiled function, and
  `summary_breaks` has three breaks on three different lines, as their tasks say;
- the cold start of a warm-start grading is cold even when the process that grades has compiled
  the very same model with Inductor before (nothing in memory or on disk leaks into it).

Every torch-touching test restores the Dynamo state and configuration it changed.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import types

import pytest
import torch

from autograder.checks.caches import WARM_START_FACTS, decide_warm_start
from autograder.checks.facts import Invalid, validate
from autograder.checks.refusal import REFUSES_FACTS, decide_refusals
from autograder.format.exercise import load, starter_source
from conftest import ROOT


def _module(name: str, text: str, path: str = "<exercise>") -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(text, path, "exec"), module.__dict__)
    return module


def _starter(exercise_id: str) -> types.ModuleType:
    exercise = load(exercise_id)
    text = starter_source(exercise.master.read_text(encoding="utf-8"), exercise.id, exercise.title)
    return _module(f"starter_{exercise_id}", text, str(exercise.starter))


def _master(exercise_id: str) -> types.ModuleType:
    exercise = load(exercise_id)
    spec = importlib.util.spec_from_file_location(f"master_{exercise_id}", exercise.master)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh_dynamo():
    """A clean Dynamo before and after, with its configuration as it was."""
    saved = torch._dynamo.config.get_config_copy()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    for key, value in saved.items():
        if getattr(torch._dynamo.config, key) != value:
            setattr(torch._dynamo.config, key, value)


# -- refuses: the decision from plain data ------------------------------------------------------------

SPEC_REFUSES = types.SimpleNamespace(kind="refuses", name="refuses", points=1, params={"inputs": "refused_calls"},
                                     section="2.2.2", hidden=False)


def _refusal(returned=False, kind="exception", type_name="RuntimeError", message="Runtime assertion failed"):
    return {"returned": returned, "kind": None if returned else kind, "type": None if returned else type_name,
            "message": "" if returned else message}


def test_refuses_passes_only_when_every_input_raises_while_running():
    exercise = load("top_scores_by_length")
    passed = decide_refusals(SPEC_REFUSES, [_refusal(), _refusal()], exercise)
    assert passed.status == "passed" and "All 2 invalid inputs were refused" in passed.message

    returned = decide_refusals(SPEC_REFUSES, [_refusal(), _refusal(returned=True)], exercise)
    assert returned.status == "failed" and "Invalid input 2 of 2 returned a result" in returned.message

    by_compiler = decide_refusals(SPEC_REFUSES, [_refusal(kind="compiler_error", type_name="UserError",
                                                          message="Could not guard on data-dependent expression")], exercise)
    assert by_compiler.status == "failed" and "refused by the compiler, not by your code" in by_compiler.message

    assert decide_refusals(SPEC_REFUSES, [], exercise).status == "failed"  # nothing run proves nothing


def test_refusal_facts_have_a_strict_shape():
    validate({"outcomes": [_refusal(), _refusal(returned=True)]}, REFUSES_FACTS)
    with pytest.raises(Invalid):  # a verdict smuggled in beside the facts
        validate({"outcomes": [_refusal()], "passed": True}, REFUSES_FACTS)
    with pytest.raises(Invalid):
        validate({"outcomes": [{**_refusal(), "returned": 1}]}, REFUSES_FACTS)


def test_refuses_can_require_an_exception_type():
    exercise = load("top_scores_by_length")
    spec = types.SimpleNamespace(**{**vars(SPEC_REFUSES), "params": {"inputs": "refused_calls", "types": ["ValueError"]}})
    wrong_type = decide_refusals(spec, [_refusal(type_name="RuntimeError")], exercise)
    assert wrong_type.status == "failed" and "one of ValueError" in wrong_type.message
    assert decide_refusals(spec, [_refusal(type_name="ValueError")], exercise).status == "passed"


def test_top_scores_reference_refuses_what_the_check_asks_to_refuse():
    master = _master("top_scores_by_length")
    calls = master.calls(torch.Generator().manual_seed(5))
    for args in calls:
        assert master.top_scores(*args).shape == (args[0].shape[0],)
    refused = master.refused_calls(calls)
    assert len(refused) == 2
    for args in refused:
        with pytest.raises(RuntimeError):
            master.top_scores(*args)
    # The original code refused them too (with a ValueError of its own), eagerly.
    starter = _starter("top_scores_by_length")
    for args in refused:
        with pytest.raises(ValueError):
            starter.top_scores(*args)


# -- warm_start: the decision from plain data ----------------------------------------------------------

SPEC_WARM = types.SimpleNamespace(kind="warm_start", name="warm_start", points=4,
                                  params={"min_ratio": 2.0, "backend": "inductor"}, section="5.5", hidden=False)


def _side(cpu_s=0.5, hits=0, misses=1, output=None, error=None, stage=None):
    return {"error": error, "stage": stage, "cpu_s": cpu_s, "output": torch.ones(3) if output is None else output,
            "counters": {"fx_hits": hits, "fx_misses": misses, "aot_hits": hits, "aot_misses": misses}}


def _facts(cold=None, warm=None, blob_bytes=1000, problem=None):
    return {"cold": cold or _side(), "warm": warm if warm is not None else _side(0.1, hits=1, misses=0),
            "blob_bytes": blob_bytes, "problem": problem}


def test_warm_start_passes_on_cache_hits_the_same_answer_and_the_ratio():
    exercise = load("warm_restart")
    validate(_facts(), WARM_START_FACTS)
    result = decide_warm_start(SPEC_WARM, _facts(), torch.ones(3), exercise)
    assert result.status == "passed" and "5.0x" in result.message and "1 FX-graph hit" in result.message


def test_warm_start_names_missing_functions_and_refuses_other_shapes():
    exercise = load("warm_restart")
    missing = decide_warm_start(SPEC_WARM, {"missing": ["load_compile_state"]}, torch.ones(3), exercise)
    assert missing.status == "failed" and "must define `load_compile_state`" in missing.message
    with pytest.raises(Invalid):  # an answer that is not a tensor of torch's own class
        validate(_facts(warm=_side(0.1, hits=1, misses=0, output=[1.0, 1.0, 1.0])), WARM_START_FACTS)
    with pytest.raises(Invalid):
        validate({**_facts(), "verdict": "passed"}, WARM_START_FACTS)


@pytest.mark.parametrize("facts, says", [
    (_facts(cold=_side(error="KeyError: 'x'", stage="save")), "first (cold) start failed in your `save_compile_state()`"),
    (_facts(problem="returned tuple, not bytes"), "returned tuple, not bytes"),
    (_facts(warm=_side(error="ValueError: bad", stage="load")), "second (warm) start failed in your `load_compile_state(blob)`"),
    (_facts(warm=_side(0.5, hits=0, misses=1)), "compiled from scratch: 1 FX-graph cache miss"),
    (_facts(warm=_side(0.1, hits=1, misses=1)), "compiled from scratch"),
    (_facts(warm=_side(0.1, hits=1, misses=0, output=torch.zeros(3))), "differs from the reference"),
    (_facts(warm=_side(0.4, hits=1, misses=0)), "not fast enough"),
], ids=["save raises", "not bytes", "load raises", "no hit", "a miss", "other answer", "too slow"])
def test_warm_start_fails_each_way_with_a_true_message(facts, says):
    validate(facts, WARM_START_FACTS)  # what the learner's process sends has the shape the judge accepts
    result = decide_warm_start(SPEC_WARM, facts, torch.ones(3), load("warm_restart"))
    assert result.status == "failed" and says in result.message, result.message


@pytest.mark.slow
def test_a_warm_up_in_the_grading_process_does_not_make_the_cold_start_warm(tmp_path, monkeypatch, fresh_dynamo):
    """The process that grades compiles the same model with Inductor first (as a submission's import
    could); the cold start still misses the cache, and a warm start without bytes misses it too."""
    from autograder.sandbox.probe import warm_start_report

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "grader-cache"))
    master = _master("warm_restart")
    example = (torch.randn(3, 32),)
    with torch.no_grad(), torch._inductor.config.patch(compile_threads=1, cpp_cache_precompile_headers=False):
        torch.compile(master.build(), backend="inductor")(*example)
    report = warm_start_report(master.build, example, lambda: b"", lambda blob: None, timeout=180)
    assert report["cold"]["error"] is None and report["warm"]["error"] is None, report
    assert report["cold"]["counters"]["fx_misses"] == 1 and report["cold"]["counters"]["fx_hits"] == 0
    assert report["warm"]["counters"]["fx_misses"] == 1 and report["warm"]["counters"]["fx_hits"] == 0
    validate(report, WARM_START_FACTS)  # the real report has the shape the judge accepts


# -- monitor_hooks: the stale answer and its fix -------------------------------------------------------

def test_monitor_hooks_starter_serves_a_stale_answer_and_the_solution_follows_the_hooks(fresh_dynamo):
    x = torch.randn(4, 8)
    starter = _starter("monitor_hooks")
    model = starter.make_model()
    compiled = torch.compile(model, backend="eager")
    before = starter.run(compiled, x)
    hooked = starter.run(compiled, x, ("attach", 0.05))
    assert torch.equal(hooked, before), "the starter's compiled model should ignore the hook (the default skips hook guards)"
    assert not torch.allclose(model(x), before), "the eager model with the hook gives another answer"
    starter.run(compiled, x, ("detach",))

    torch._dynamo.reset()
    master = _master("monitor_hooks")  # sets skip_nnmodule_hook_guards = False, as its solution does
    assert torch._dynamo.config.skip_nnmodule_hook_guards is False
    model = master.make_model()
    compiled = torch.compile(model, backend="eager")
    before = master.run(compiled, x)
    hooked = master.run(compiled, x, ("attach", 0.05))
    assert torch.allclose(hooked, model(x)) and not torch.allclose(hooked, before), "the stale answer is gone"
    unhooked = master.run(compiled, x, ("detach",))
    assert torch.allclose(unhooked, before), "after the detach the answer is the unhooked one again"


# -- the structure the tasks describe -----------------------------------------------------------------

def test_scorer_break_is_reported_two_calls_below_the_compiled_function(fresh_dynamo):
    starter = _starter("scorer_one_graph")
    compiled = torch.compile(starter.score, fullgraph=True, backend="eager")
    with pytest.raises(torch._dynamo.exc.Unsupported) as raised:
        compiled(torch.randn(3, 6), torch.randn(6, 5))
    stack = str(raised.value).split("from user code:", 1)[1]
    frames = re.findall(r'File "[^"]*scorer_one_graph\.py", line \d+, in (\w+)', stack)
    assert frames == ["score", "rescale", "_spread"], frames


def test_summary_breaks_has_three_breaks_on_three_lines_of_summarise(fresh_dynamo):
    starter = _starter("summary_breaks")
    report = torch._dynamo.explain(starter.summarise)(torch.randn(4, 6), torch.randn(6, 5))
    sites = [(reason.user_stack[-1].name, reason.user_stack[-1].lineno) for reason in report.break_reasons]
    assert report.graph_break_count == 3 and len(set(sites)) == 3 and {name for name, _ in sites} == {"summarise"}, sites

"""Chapters 3 (non-strict tracing) and 4 (recompilations): the new check kinds, the lessons' coverage,
and every dodge graded as failed.

Each cheat is made from the exercise's own starter or master text by string replacement, so a change
to an exercise that makes a cheat meaningless fails here loudly (``swap`` asserts the text it
replaces is there). Each grading runs in its own child process (about 1 to 5 s).
"""

import json
import re
import types

import pytest
import torch

import dataclasses

from autograder.checks import tracing as checks_tracing
from autograder.checks.evidence import Evidence, Measured
from autograder.sandbox.kinds import tracing as kinds_tracing
from autograder.format.exercise import CheckSpec, ExerciseFormatError, discover, parse_master
from autograder.engine.grader import grade
from autograder.sandbox.probe import Measurement, call_timeline
from conftest import ROOT, run_cli
from exercise_text import message, solution, starter, status, swap, violations

CHAPTERS = {"03_nonstrict_tracing": 3, "04_recompilation": 4}
SEED = 5


def graded(submission, exercise_id, text):
    return grade(exercise_id, submission(text), seed=SEED)


# -- the chapters as a whole ---------------------------------------------------------------------

def test_list_json_maps_nine_or_more_exercises_to_chapters_3_and_4_covering_every_ex_id():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    listed = [e for e in json.loads(out) if e["chapter_slug"] in CHAPTERS]
    assert len(listed) >= 9
    assert all(e["chapter"] == CHAPTERS[e["chapter_slug"]] for e in listed)
    covered = {sid for e in listed for sid in e["syllabus"]}
    assert {"3.1.1", "3.1.2", "3.1.3", "3.2", "4.1", "4.2", "4.3", "4.4", "4.5"} <= covered
    chapter4 = [e for e in listed if e["chapter"] == 4]
    assert {".".join(e["syllabus"][0].split(".")[:2]) for e in chapter4} == {"4.1", "4.2", "4.3", "4.4", "4.5"}  # each ID has its exercise
    assert len([e for e in listed if e["chapter"] == 3]) >= 4


def test_every_master_of_chapters_3_and_4_states_its_requirements():
    """The allow-list of masters without requirements holds none of these chapters (dev check proves the rest)."""
    from autograder.authoring import dev

    pending = dev.pending_requirements()
    assert not [e.id for e in discover() if e.chapter in CHAPTERS and (e.id in pending or not e.requirements)]


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_lesson_has_each_section_once_and_links_runs_and_checks_every_exercise(chapter):
    text = (ROOT / "lessons" / f"{chapter}.py").read_text()
    number = str(CHAPTERS[chapter])
    wanted = {"3": ["3.1", "3.1.1", "3.1.2", "3.1.3", "3.1.4", "3.2"], "4": ["4.1", "4.1.1", "4.1.2", "4.2", "4.3", "4.4", "4.5"]}[number]
    found = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", text, re.M)
    assert sorted(found) == sorted(wanted), found
    assert "data:image" not in text and "savefig" not in text  # plots are drawn live, never stored
    for exercise in [e for e in discover() if e.chapter == chapter]:
        assert f"(../exercises/{chapter}/{exercise.id}.py)" in text, exercise.id
        assert f"# !{{sys.executable}} ../exercises/{chapter}/{exercise.id}.py" in text, exercise.id
        assert f'check("{exercise.id}")' in text, exercise.id


@pytest.mark.parametrize("exercise", [e for e in discover() if e.chapter in CHAPTERS], ids=lambda e: e.id)
def test_starter_has_a_todo_and_a_demo(exercise):
    text = exercise.starter.read_text()
    assert "# TODO:" in text and 'if __name__ == "__main__":' in text
    assert all(sid.split(".")[0] == str(exercise.chapter_number) for sid in exercise.syllabus)


# -- the engine: nonstrict, ops, recompile_limit in COMPILE_OPTIONS ------------------------------

def _pipeline_module(helper_body):
    module = types.ModuleType("fake_submission")
    module.GLOBAL = torch.zeros(3)
    exec(f"def helper(x):\n    {helper_body}\n\ndef entry(x):\n    return helper(x) + 1\n", module.__dict__)
    return module


def test_run_pipeline_traces_the_helper_once_and_replays_its_graph():
    module = _pipeline_module("return x + GLOBAL")

    def rebind(number):
        module.GLOBAL = torch.full((3,), float(number))

    calls = [(torch.zeros(3),) for _ in range(3)]
    traced = kinds_tracing.run_pipeline(module, module.entry, calls, helper="helper", before_call=rebind)
    eager = kinds_tracing.run_pipeline(module, module.entry, calls, before_call=rebind)
    assert traced.graph is not None and traced.graph_calls == [1, 1, 1]
    assert [o[0].item() for o in traced.outputs] == [1.0, 1.0, 1.0]  # the global of call 1, baked in
    assert [o[0].item() for o in eager.outputs] == [1.0, 2.0, 3.0]
    assert callable(module.helper) and not isinstance(module.helper, kinds_tracing._TraceOnce)  # put back
    moved = kinds_tracing.run_pipeline(module, module.entry, calls, helper="helper", before_call=rebind, perturb=True)
    assert [o[0].item() for o in moved.outputs] == [1.5, 1.5, 1.5]  # the graph returned 0 * 1.25 + 0.5: the entry follows


def test_run_pipeline_keeps_objects_shared_between_calls_shared_and_records_prints():
    module = types.ModuleType("fake_submission")
    exec("def helper(x, q):\n    print('tracing')\n    return x + q.pop()\n\ndef entry(x, q):\n    return helper(x, q)\n",
         module.__dict__)
    queue = [torch.ones(2), torch.ones(2)]
    calls = [(torch.zeros(2), queue), (torch.zeros(2), queue)]
    eager = kinds_tracing.run_pipeline(module, module.entry, calls)
    traced = kinds_tracing.run_pipeline(module, module.entry, calls, helper="helper")
    assert [len(args[1]) for args in eager.arguments] == [1, 0]  # one list, shared by both calls
    assert [len(args[1]) for args in traced.arguments] == [2, 2]  # the graph never pops
    assert eager.stdout == ["tracing\n", "tracing\n"] and traced.stdout == ["tracing\n", ""]
    assert len(queue) == 2  # the grader's schedule itself is untouched


def test_run_pipeline_records_what_the_graph_reads_and_the_globals_it_holds():
    module = types.ModuleType("fake_submission")
    module.GLOBAL = torch.zeros(3)
    exec("def helper(x, t, unused):\n    return x * t + GLOBAL\n\ndef entry(x, t):\n    return helper(x, t, 0.5)\n", module.__dict__)
    calls = [(torch.ones(3), 2.0), (torch.ones(3), torch.tensor(3.0))]
    run = kinds_tracing.run_pipeline(module, module.entry, calls[:1] + [(torch.ones(3), 2.0)], helper="helper",
                                     record_inputs=True, find_globals=True)
    assert run.global_constants == ["GLOBAL"]  # read as a global: a constant of the graph
    assert [len(values) for values in run.graph_inputs] == [1, 1]  # x only: the floats were baked in, unread
    tensor_run = kinds_tracing.run_pipeline(module, module.entry, [(torch.ones(3), torch.tensor(t)) for t in (2.0, 3.0)],
                                            helper="helper", record_inputs=True)
    assert [values[1].item() for values in tensor_run.graph_inputs] == [2.0, 3.0]  # a tensor input, one value per call


def test_a_value_is_carried_by_an_equal_tensor_or_one_filled_with_that_number():
    carries = checks_tracing._carries
    assert carries(torch.tensor(2.5), 2.5, 1e-5, 1e-6) and carries(torch.full((1,), 2.5), torch.tensor(2.5), 1e-5, 1e-6)
    assert carries(torch.arange(3.0), torch.arange(3.0), 1e-5, 1e-6)
    assert not carries(torch.arange(3.0), torch.arange(3.0) + 1, 1e-5, 1e-6)
    assert not carries(torch.tensor(0.4), 2.5, 1e-5, 1e-6) and not carries(2.5, 2.5, 1e-5, 1e-6)  # a number is no graph input


def _ops_context(ops_per_graph, params):
    exercise = next(e for e in discover() if e.id == "recompile_break_tail")
    measurement = Measurement(calls=4, graphs=len(ops_per_graph), ops_per_graph=ops_per_graph)
    spec = CheckSpec(kind="ops", name="ops", points=1, params=params, section="4.5")
    ev = Evidence(exercise=exercise, measurement=Measured(dataclasses.asdict(measurement)), calls=4)
    return checks_tracing.check_ops(spec, ev)


def test_ops_budget_counts_every_graph_and_keeps_the_expensive_part_compiled():
    assert _ops_context([18, 1, 1, 1], {"max": 40, "min_largest": 18}).status == "passed"
    assert _ops_context([19, 19, 19, 19], {"max": 40}).status == "failed"
    assert "largest graph" in _ops_context([1, 1, 1], {"max": 40, "min_largest": 18}).message


def test_call_timeline_records_recompiles_ops_and_eager_calls():
    def by_length(x, text):
        return x * len(text)

    with torch._dynamo.config.patch(recompile_limit=2):
        records = call_timeline(by_length, [(torch.ones(2), "a" * n) for n in (1, 2, 3, 1)])
    assert [r.recompiles for r in records] == [0, 1, 0, 0]
    assert [r.compiled for r in records] == [True, True, False, True]
    assert [r.ops for r in records] == [1, 1, 0, 0]


def test_nonstrict_checks_are_validated(tmp_path):
    text = swap(solution("pure_print_rows"), 'observe = ["stdout"]', 'observe = ["stdout", "logs"]')
    folder = tmp_path / "03_nonstrict_tracing"
    folder.mkdir()
    (folder / "pure_print_rows.py").write_text(text)
    with pytest.raises(ExerciseFormatError, match="observe"):
        parse_master(folder / "pure_print_rows.py")


# -- chapter 3: dodges of the non-strict checks --------------------------------------------------

def test_a_pipeline_that_skips_the_traced_helper_fails(submission):
    cheat = swap(starter("pure_global_offset"), "return torch.sigmoid(calibrate(x))",
                 "return torch.sigmoid((x - CALIBRATION) * 2.0)")
    result = graded(submission, "pure_global_offset", cheat)
    assert not result.passed and "in no call" in message(result, "follows_calibration")


def test_an_alias_taken_at_import_is_the_same_dodge(submission):
    cheat = swap(solution("pure_global_offset"), "def predict(x):", "_calibrate = calibrate\n\n\ndef predict(x):")
    cheat = swap(cheat, "return torch.sigmoid(calibrate(x, CALIBRATION))", "return torch.sigmoid(_calibrate(x, CALIBRATION))")
    result = graded(submission, "pure_global_offset", cheat)
    assert not result.passed and "in no call" in message(result, "follows_calibration")


def test_patching_make_fx_does_not_turn_the_replay_into_eager_python(submission):
    cheat = starter("specialize_temperature") + (
        "\nimport torch.fx.experimental.proxy_tensor as _pt\n"
        "_pt.make_fx = lambda fn, **kw: (lambda *args: fn)\n")
    result = graded(submission, "specialize_temperature", cheat)
    assert not result.passed and status(result)["follows_temperature"] == "failed"


# -- chapter 4: dodges of the recompile budgets --------------------------------------------------

NOT_THE_FIX = ["dynamic_log_scale", "recompile_lr_tensor", "recompile_module_counter", "recompile_break_tail"]


@pytest.mark.parametrize("exercise_id", NOT_THE_FIX)
def test_raising_the_recompile_limit_fails_where_it_is_not_the_fix(submission, exercise_id):
    cheat = starter(exercise_id) + "\nimport torch._dynamo\ntorch._dynamo.config.recompile_limit = 64\n"
    result = graded(submission, exercise_id, cheat)
    assert not result.passed and result.score == 0
    assert "recompile_limit" in violations(result)


def test_raising_the_limit_through_its_other_name_is_caught_too(submission):
    cheat = starter("recompile_module_counter") + "\nimport torch._dynamo\ntorch._dynamo.config.cache_size_limit = 64\n"
    result = graded(submission, "recompile_module_counter", cheat)
    assert not result.passed and "recompile_limit" in violations(result)


def test_a_per_function_limit_is_ignored_where_the_exercise_does_not_offer_it(submission):
    cheat = starter("dynamic_log_scale") + '\nCOMPILE_OPTIONS = {"recompile_limit": 64, "dynamic": True}\n'
    result = graded(submission, "dynamic_log_scale", cheat)
    assert not result.passed
    assert result.measurements["compile_options"] == {}
    assert status(result)["compiled_calls"] == "failed"


@pytest.mark.parametrize("stance", ["eager_on_recompile", "force_eager"])
def test_a_stance_set_at_import_is_caught(submission, stance):
    cheat = starter("recompile_module_counter") + f"\ntorch.compiler.set_stance({stance!r})\n"
    result = graded(submission, "recompile_module_counter", cheat)
    assert not result.passed and result.score == 0
    assert "stance" in violations(result)
    assert result.measurements["recompiles"] == 7  # measured in the default stance all the same


@pytest.mark.parametrize("stance", ["eager_on_recompile", "force_eager"])
def test_a_stance_set_inside_the_factory_changes_nothing(submission, stance):
    cheat = swap(starter("recompile_module_counter"), "def make_model():\n",
                 f"def make_model():\n    torch.compiler.set_stance({stance!r})\n")
    result = graded(submission, "recompile_module_counter", cheat)
    assert not result.passed
    assert result.measurements["recompiles"] == 7 and result.measurements["compiled_calls"] == 8


def test_the_unspec_int_flag_fails_where_it_is_not_allowed(submission):
    cheat = solution("recompile_lr_tensor") + "\nimport torch._dynamo\ntorch._dynamo.config.allow_unspec_int_on_nn_module = True\n"
    result = graded(submission, "recompile_lr_tensor", cheat)
    assert not result.passed and "allow_unspec_int_on_nn_module" in violations(result)


def test_dynamic_true_cannot_be_chosen_for_the_learning_rate_exercise(submission):
    cheat = starter("recompile_lr_tensor") + '\nCOMPILE_OPTIONS = {"dynamic": True}\n'
    result = graded(submission, "recompile_lr_tensor", cheat)
    assert not result.passed and result.measurements["compile_options"] == {}


@pytest.mark.parametrize("how", ["per_function", "config"])
def test_a_huge_limit_fails_the_limit_exercise_and_a_tight_one_passes(submission, how):
    text = starter("recompile_limit_layers")
    old = "COMPILE_OPTIONS = {}"
    if how == "per_function":
        huge, tight = swap(text, old, 'COMPILE_OPTIONS = {"recompile_limit": 1000}'), swap(text, old, 'COMPILE_OPTIONS = {"recompile_limit": 16}')
    else:
        setting = "\nimport torch._dynamo\ntorch._dynamo.config.recompile_limit = {}\n"
        huge, tight = text + setting.format(1000), text + setting.format(16)
    result = graded(submission, "recompile_limit_layers", huge)
    assert status(result)["limit_stays_tight"] == "failed" and status(result)["compiled_calls"] == "passed"
    assert not result.passed and not violations(result)
    result = graded(submission, "recompile_limit_layers", tight)
    assert result.passed, [c.message for c in result.checks]


def test_counts_of_a_schedule_that_stopped_early_fail_and_say_why():
    """A graph or recompile count over calls that stopped at an error covers only the calls before the
    stop (the storm that would have come later is not in it): it fails, and says the run stopped."""
    from autograder.checks import core as checks_core

    exercise = next(e for e in discover() if e.id == "recompile_break_tail")
    error = {"kind": "exception", "message": "ValueError: bad request", "file": "", "line": 0}

    def decide(kind, params, **measured):
        spec = CheckSpec(kind=kind, name=kind, points=1, params=params, section="4.5")
        ev = Evidence(exercise=exercise, measurement=Measured(dataclasses.asdict(Measurement(**measured))), calls=6)
        return getattr(checks_core, f"check_{kind}")(spec, ev)

    assert decide("graphs", {"equal": 1}, calls=6, graphs=1).status == "passed"
    assert decide("recompiles", {"max": 1}, calls=6, graphs=2, recompiles=1).status == "passed"
    stopped = decide("graphs", {"equal": 1}, calls=2, graphs=1, error=error)
    assert stopped.status == "failed" and "stopped at call 2 of 6" in stopped.message
    stopped = decide("recompiles", {"max": 1}, calls=2, graphs=1, error=error)
    assert stopped.status == "failed" and "stopped at call 2 of 6" in stopped.message

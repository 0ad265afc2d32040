"""Chapters 5 (compile time) and 6 (guard overhead): the lessons' coverage, the new check kinds'
probes, and the dodges graded as failed.

Each cheat is made from the exercise's own starter or master text by string replacement, so a change
to an exercise that makes a cheat meaningless fails here loudly (``swap`` asserts the text it
replaces is there). Gradings use ``costly=False`` (no timing checks): the dodges here are caught by
structure and correctness, which is the point. Each grading runs in its own child process.
"""

import json
import re

import pytest
import torch

from autograder.format.exercise import COSTLY_KINDS, discover
from autograder.engine.grader import grade
from autograder.sandbox.probe import guard_report, recording_filter
from conftest import ROOT, run_cli
from exercise_text import message, solution, starter, status, swap

CHAPTERS = {"05_compile_time": 5, "06_guard_overhead": 6}
SECTIONS = {5: ["5.1", "5.2", "5.3", "5.4", "5.5", "5.6"], 6: ["6.1", "6.2", "6.3", "6.4", "6.5", "6.6"]}
SEED = 5


def graded(submission, exercise_id, text):
    return grade(exercise_id, submission(text), seed=SEED, costly=False)


# -- the chapters as a whole ---------------------------------------------------------------------

def test_list_json_maps_the_exercises_to_chapters_5_and_6_covering_every_exercise_id():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    listed = [e for e in json.loads(out) if e["chapter_slug"] in CHAPTERS]
    assert len(listed) >= 10
    assert all(e["chapter"] == CHAPTERS[e["chapter_slug"]] for e in listed)
    covered = {sid for e in listed for sid in e["syllabus"]}
    assert {"5.1", "5.2", "5.3", "5.4", "5.5", "6.1", "6.2", "6.3", "6.4", "6.5"} <= covered


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_lesson_has_each_section_once_and_links_runs_and_checks_every_exercise(chapter):
    text = (ROOT / "lessons" / f"{chapter}.py").read_text()
    found = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", text, re.M)
    assert sorted(found) == SECTIONS[CHAPTERS[chapter]], found
    assert "data:image" not in text and "savefig" not in text  # plots are drawn live, never stored
    assert text.count("assert ") >= 8  # the numbers the prose states are computed and asserted
    for exercise in [e for e in discover() if e.chapter == chapter]:
        assert f"(../exercises/{chapter}/{exercise.id}.py)" in text, exercise.id
        assert f"!{{sys.executable}} ../exercises/{chapter}/{exercise.id}.py" in text, exercise.id
        assert f'check("{exercise.id}")' in text, exercise.id


@pytest.mark.parametrize("exercise", [e for e in discover() if e.chapter in CHAPTERS], ids=lambda e: e.id)
def test_starter_has_a_todo_and_a_demo_that_needs_no_grader_code(exercise):
    text = exercise.starter.read_text()
    assert "# TODO:" in text and 'if __name__ == "__main__":' in text
    assert not re.search(r"(?<![a-z_])calls\(", text.split('if __name__ == "__main__":')[1])  # no grader code in the demo
    assert all(sid.split(".")[0] == str(exercise.chapter_number) for sid in exercise.syllabus)


def test_chapter_five_ends_with_its_capstone_whose_starter_points_nowhere():
    chapter = [e for e in discover() if e.chapter == "05_compile_time"]
    assert chapter[-1].id == "rerank_cold_start" and chapter[-1].capstone
    assert all(e.requirements and len(e.fair) >= 2 for e in chapter)
    todo = [line for line in chapter[-1].starter.read_text().splitlines() if "TODO" in line]
    assert todo == ["# TODO: find out where the compile time goes, and cut it."]
    text = (ROOT / "lessons" / "05_compile_time.py").read_text()
    cells = [text.index(f'check("{e.id}")') for e in chapter]
    assert cells == sorted(cells), "the lesson's exercise cells follow the course order"


def test_timing_kinds_are_costly():
    assert {"compile_time", "guard_time"} <= set(COSTLY_KINDS)


# -- the probes behind the guards checks ---------------------------------------------------------

class _Tower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.scale


def test_recording_filter_counts_offered_and_kept_guards():
    record, seen = recording_filter(lambda entries: [i % 2 == 0 for i in range(len(entries))])
    assert record([object()] * 5) == [True, False, True, False, True]
    assert seen == [(5, 3)]


def test_guard_report_counts_kept_guards_and_inputs_and_sees_no_graph_when_disabled():
    x = torch.randn(2, 4)
    full = guard_report(_Tower(), [(x,)], {})
    filtered = guard_report(_Tower(), [(x,)], {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe})
    assert full["kept"] == full["offered"] > 0 and full["inputs"] == [5] and full["graphs"] == 1
    assert filtered["kept"] == 0 and filtered["offered"] == full["offered"]
    helper = torch.compiler.disable(lambda t: t * 2)
    disabled = guard_report(lambda t: helper(t), [(x,)], {})
    assert disabled["graphs"] == 0  # guards of an empty frame, no graph: what check_guards refuses


def _measured_guards(driver, counted: bool, monkeypatch) -> dict:
    from autograder.sandbox.probe import guards as guard_probe
    from autograder.sandbox.probe import measure

    monkeypatch.setattr(guard_probe, "can_count_guards", lambda: counted)
    schedule = [(torch.randn(2, 4),), (torch.randn(3, 4),), (torch.randn(5, 4),)]
    return measure(_Tower(), schedule, {}, driver=driver, record_guards=True).guard_report


@pytest.mark.parametrize("driver", ["plain", "config_patched", "own_compile"])
def test_guards_counted_without_a_filter_report_what_the_recording_filter_reports(driver, monkeypatch):
    """With no guard filter of the learner's, the schedule is measured without one of the grader's
    (Dynamo would build every guard twice to offer them to it): the report must be the one the
    recording filter gives, each compile's configuration included, and a compile of the learner's
    own with another backend (never offered to the grader's filter) is not counted."""
    import torch._dynamo.guards as dynamo_guards

    own = torch.compile(lambda t: t.cos() + 1, backend="eager")
    drivers = {
        "plain": lambda compiled, t: compiled(t),
        "config_patched": lambda compiled, t: _patched_call(compiled, t),
        "own_compile": lambda compiled, t: own(compiled(t)),
    }
    builds = []
    original = dynamo_guards.CheckFunctionManager.build_guards

    def counting_builds(self, *args, **kwargs):
        builds.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(dynamo_guards.CheckFunctionManager, "build_guards", counting_builds)
    counted = _measured_guards(drivers[driver], True, monkeypatch)
    built_counted, builds[:] = len(builds), []
    torch._dynamo.reset()
    filtered = _measured_guards(drivers[driver], False, monkeypatch)
    assert counted == filtered and counted["offered"] > 0 and counted["compiles"] >= 2
    assert built_counted < len(builds)  # the filter's first build is gone
    assert dynamo_guards.CheckFunctionManager.__init__.__name__ == "__init__"  # put back after the schedule
    if driver == "config_patched":
        assert all(seen["use_recursive_dict_tags_for_guards"] for seen in counted["config_at_compile"])


def _patched_call(compiled, t):
    with torch._dynamo.config.patch(use_recursive_dict_tags_for_guards=True):
        return compiled(t)


# -- chapter 5: dodges of the compile-time checks -------------------------------------------------

def test_lowering_the_recompile_limit_is_no_fix_for_a_float_knob(submission):
    cheat = swap(starter("nightly_rerun"), "import torch\n",
                 "import torch\nimport torch._dynamo\n\ntorch._dynamo.config.recompile_limit = 1\n")
    result = graded(submission, "nightly_rerun", cheat)
    assert not result.passed
    assert "recompile_limit" in " ".join(result.extra.get("violations", [])) or status(result)["later_run"] == "failed"


def _float_score(x, temperature):
    return torch.softmax(torch.tanh(x) / temperature, dim=-1)


def test_job_reruns_keep_what_automatic_dynamic_learned_only_under_a_job_id(tmp_path):
    from autograder.sandbox.probe import job_reruns

    calls = [(torch.randn(2, 4), t) for t in (0.5, 0.9, 1.7)]
    try:
        for job_id, expected in ((None, [2, 2]), ("test-chapters-5-6", [2, 1])):
            torch.compiler.config.job_id = job_id
            folder = tmp_path / str(job_id)
            folder.mkdir()
            report = job_reruns(lambda: (_float_score, None), calls, str(folder))
            assert report["graphs"] == expected and report["error"] is None, report
            assert "temperature" in report["reasons"][0]  # run 1 always pays the recompile, and says on what
    finally:
        torch.compiler.config.job_id = None


def test_the_clock_of_a_later_run_is_a_night_later_and_durations_stay_true():
    import datetime
    import time

    from autograder.sandbox.probe.compile_cost import RERUN_INTERVAL_S, clock_moved

    before, monotonic = time.time(), time.monotonic()
    with clock_moved(RERUN_INTERVAL_S):
        assert abs(time.time() - before - RERUN_INTERVAL_S) < 60
        assert time.strftime("%Y-%m-%d %H") != time.strftime("%Y-%m-%d %H", time.localtime(before))
        assert datetime.date.today() > datetime.date.fromtimestamp(before)
        assert datetime.datetime.now().timestamp() - before > RERUN_INTERVAL_S - 60
        assert time.monotonic() - monotonic < 60
    assert abs(time.time() - before) < 60 and datetime.date.today() == datetime.date.fromtimestamp(time.time())


def test_a_job_id_made_from_the_date_relearns_every_night(tmp_path):
    from autograder.sandbox.probe import job_reruns

    def start():
        import time
        torch.compiler.config.job_id = "nightly-" + time.strftime("%Y-%m-%d")
        return _float_score, None

    calls = [(torch.randn(2, 4), t) for t in (0.5, 0.9, 1.7)]
    try:
        report = job_reruns(start, calls, str(tmp_path))
        assert report["graphs"] == [2, 2] and report["error"] is None, report
    finally:
        torch.compiler.config.job_id = None


def test_a_guards_check_sees_the_config_of_each_compile_not_what_was_left_set_after_it():
    x = torch.randn(2, 4)

    def patched(compiled, t):
        with torch._dynamo.config.patch(use_recursive_dict_tags_for_guards=True):
            return compiled(t)

    def set_late(compiled, t):
        answer = compiled(t)
        torch._dynamo.config.use_recursive_dict_tags_for_guards = True
        return answer

    keys = ["use_recursive_dict_tags_for_guards"]
    inside = guard_report(_Tower(), [(x,), (torch.randn(3, 4),)], {}, driver=patched, config_keys=keys)
    with torch._dynamo.config.patch(use_recursive_dict_tags_for_guards=False):
        late = guard_report(_Tower(), [(x,), (torch.randn(3, 4),)], {}, driver=set_late, config_keys=keys)
    assert [seen["use_recursive_dict_tags_for_guards"] for seen in inside["config_at_compile"]] == [True, True]
    assert [seen["use_recursive_dict_tags_for_guards"] for seen in late["config_at_compile"]] == [False, True]


def test_running_the_blocks_around_the_compiled_part_is_no_regional_compilation(submission):
    cheat = swap(solution("regional_blocks"), "        x = part(block, x)\n", "        x = x + block(x)\n")
    result = graded(submission, "regional_blocks", cheat)
    assert not result.passed and status(result)["compiled_calls"] == "failed" and status(result)["compile_time"] == "skipped"


def test_disabling_the_layer_breaks_the_single_graph_nested_region_needs(submission):
    cheat = swap(starter("nested_region"), "\ndef layer(x, w1, w2):", "\n@torch.compiler.disable\ndef layer(x, w1, w2):")
    result = graded(submission, "nested_region", cheat)
    assert not result.passed and status(result)["subgraphs"] == "failed"


# -- chapter 6: unsafe shortcuts must show up as wrong answers or failed structure ----------------

def test_skip_all_guards_goes_stale_when_the_schedule_changes_the_slope(submission):
    cheat = swap(starter("filter_keeps_attr"), "torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe",
                 "torch.compiler.skip_all_guards_unsafe")
    result = graded(submission, "filter_keeps_attr", cheat)
    assert not result.passed and status(result)["correct"] == "failed"


def test_the_flag_does_not_excuse_an_unsafe_filter_in_dict_tags_first(submission):
    cheat = swap(solution("dict_tags_first"), 'COMPILE_OPTIONS = {"guard_filter_fn": None}',
                 'COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}')
    result = graded(submission, "dict_tags_first", cheat)
    assert not result.passed and status(result)["correct"] == "failed" and status(result)["guards"] == "failed"


def test_a_disabled_forward_has_no_guards_to_filter(submission):
    cheat = swap(starter("filter_nn_guards"), "\n    def forward(self, x):", "\n    @torch.compiler.disable\n    def forward(self, x):")
    result = graded(submission, "filter_nn_guards", cheat)
    assert not result.passed and "No graph was compiled" in message(result, "guards")


def test_a_guard_filter_where_none_is_allowed_is_ignored(submission):
    cheat = starter("free_tensors") + "\nCOMPILE_OPTIONS = {\"guard_filter_fn\": torch.compiler.skip_all_guards_unsafe}\n"
    result = graded(submission, "free_tensors", cheat)
    kept, offered = re.search(r"(\d+) of (\d+) guards kept", message(result, "guards")).groups()
    assert not result.passed and kept == offered


def test_entering_the_stance_before_warm_up_fails(submission):
    cheat = swap(solution("skip_eval_serving"), 'if phase == "serve":', "if True:")
    result = graded(submission, "skip_eval_serving", cheat)
    assert not result.passed and "failed" in (status(result)["stance_calls"], status(result)["correct"])


def test_skipping_every_guard_in_serve_tuned_answers_a_batch_with_the_single_request_graph(submission):
    cheat = swap(solution("serve_tuned"), 'COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}',
                 'COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe}')
    result = graded(submission, "serve_tuned", cheat)
    assert not result.passed and status(result)["correct"] == "failed"


def test_serving_under_the_stance_from_the_first_call_fails_serve_tuned(submission):
    cheat = swap(solution("serve_tuned"), 'if phase == "serve":', "if True:")
    result = graded(submission, "serve_tuned", cheat)
    assert not result.passed and status(result)["correct"] == "failed"


def test_costly_always_times_a_starter_whose_structure_fails_and_its_timing_alone_fails_too(submission):
    exercise = next(e for e in discover() if e.id == "filter_nn_guards")
    result = grade(exercise.id, exercise.starter, seed=SEED, costly="always")
    timed = next(c for c in result.checks if c.name == "guard_time")
    assert status(result)["guards"] == "failed"
    assert timed.status == "failed", timed.message  # starter against itself: about 1x, needs 2x
    assert "interleaved" in timed.message

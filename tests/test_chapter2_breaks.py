"""Chapter 2 (graph breaks, 2.1-2.4): the engine's new checks and header keys, and every dodge graded as failed.

Each cheat is made from the exercise's own starter or master text by string replacement, so a
change to an exercise that makes a cheat meaningless fails here loudly (``swap`` asserts the text
it replaces is there). Each grading runs in its own child process (~3 s).
"""

import json

import pytest

from autograder.format.exercise import ExerciseFormatError, discover, parse_master
from autograder.engine.grader import grade
from conftest import ROOT, run_cli
from exercise_text import message, solution, starter, status, swap, violations  # noqa: F401

CHAPTER = "02_graph_breaks"
SEED = 5


def graded(submission, exercise_id, text):
    return grade(exercise_id, submission(text), seed=SEED)


# -- the chapter as a whole -----------------------------------------------------------------------

def test_list_json_maps_nine_or_more_exercises_to_every_ex_id_of_2_1_to_2_4():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    listed = [e for e in json.loads(out) if e["chapter_slug"] == CHAPTER and not e["syllabus"][0].startswith("2.5")]
    assert len(listed) >= 9
    covered = {sid for e in listed for sid in e["syllabus"]}
    assert {"2.1.1", "2.1.2", "2.1.3", "2.2.1", "2.2.2", "2.2.3", "2.3", "2.4"} <= covered


def test_lesson_has_each_section_once_and_mentions_every_exercise():
    import re

    text = (ROOT / "lessons" / "02a_graph_breaks.py").read_text()  # part 1 of chapter 2: 2.1-2.4
    found = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", text, re.M)
    wanted = ["2.1", "2.1.1", "2.1.2", "2.1.3", "2.2", "2.2.1", "2.2.2", "2.2.3", "2.3", "2.4"]
    assert [sid for sid in found if sid in wanted] == wanted and len(found) == len(set(found))
    for exercise in discover():
        if exercise.chapter == CHAPTER and exercise.syllabus[0].split(".")[1] in "1234":
            assert f"../exercises/{CHAPTER}/{exercise.id}.py" in text and f'check("{exercise.id}")' in text


def test_sections_2_1_to_2_4_state_their_requirements_and_climb_the_difficulty_ladder():
    """The first exercise points at the line to change, the middle ones at the function, the last
    (two false promises in one operator's registration) nowhere: one TODO at the top of the file."""
    part = [e for e in discover() if e.chapter == CHAPTER and not e.syllabus[0].startswith("2.5")]
    assert all(e.requirements and len(e.fair) >= 2 for e in part), [e.id for e in part if not e.requirements]
    starters = {e.id: e.starter.read_text() for e in part}
    first = [line for line in starters.pop("breaks_iterator").splitlines() if "TODO" in line]
    assert len(first) == 1 and "next(chunk)" in first[0], "the first exercise is guided: the TODO sits on the line"
    capstone = [line for line in starters.pop("custom_op_mutation").splitlines() if "TODO" in line]
    assert capstone == ["# TODO: find out why Inductor cannot trust this operator, and fix it."]
    for exercise_id, text in starters.items():
        lines = text.splitlines()
        todo = [number for number, line in enumerate(lines) if "TODO" in line]
        assert len(todo) == 1 and lines[todo[0] - 1].lstrip().startswith("def "), f"{exercise_id}: one TODO, at the top of a function"


# -- header keys and check parameters are validated ------------------------------------------------

MASTER = '''# /// exercise
# format_version = 1
# title = "Demo"
# syllabus = ["2.2.3"]
# entry = "f"
# compile = { fullgraph = true }
# config_may_add = { reorderable_logging_functions = ["print"] }
# starter_fails = ["compiles"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "compiles"
#
# [[checks]]
# kind = "output"
# stream = "stdout"
# ///
"""Make f one graph."""

import torch


def f(x):
    # BEGIN SOLUTION
    return x.sin()
    # END SOLUTION
    # BEGIN STARTER
    # print(x)  # TODO: remove the print
    # return x.sin()
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER
'''


def write_master(tmp_path, text):
    folder = tmp_path / "solutions" / "02_demo"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "demo_master.py"
    path.write_text(text)
    return path


def test_new_header_keys_parse(tmp_path):
    exercise = parse_master(write_master(tmp_path, MASTER.replace('# entry = "f"', '# entry = "f"\n# driver = "run"')))
    assert exercise.config_may_add == {"reorderable_logging_functions": ["print"]}
    assert exercise.driver == "run"
    assert [c.kind for c in exercise.checks] == ["compiles", "output"]


@pytest.mark.parametrize("old, new, words", [
    ('["print"] }', '["anything"] }', "config_may_add.reorderable_logging_functions"),
    ("# config_may_add", '# allow_config = ["reorderable_logging_functions"]\n# config_may_add', "both allow_config and config_may_add"),
    ('# entry = "f"', '# entry = "f"\n# driver = "not a name"', "driver"),
    ('stream = "stdout"', 'stream = "stderr"', "output.stream"),
    ('stream = "stdout"', 'expect = "loud"', "output.expect"),
    ('kind = "output"\n# stream = "stdout"', 'kind = "no_dodge"\n# forbid = ["prayer"]', "no_dodge.forbid"),
    ('kind = "output"\n# stream = "stdout"', 'kind = "opcheck"\n# op = "no_namespace"', "opcheck.op"),
    ('kind = "output"\n# stream = "stdout"', 'kind = "escape_hatch"\n# via = "magic"', "escape_hatch.via"),
])
def test_bad_chapter_2_headers_get_a_clear_error(tmp_path, old, new, words):
    with pytest.raises(ExerciseFormatError, match=words):
        parse_master(write_master(tmp_path, swap(MASTER, old, new)))


def test_an_escape_hatch_check_needs_aot_tracing(tmp_path):
    text = swap(MASTER, "compile = { fullgraph = true }", 'compile = { fullgraph = true, backend = "inductor" }')
    text = swap(text, 'kind = "output"\n# stream = "stdout"', 'kind = "escape_hatch"')
    with pytest.raises(ExerciseFormatError, match="escape_hatch check traces"):
        parse_master(write_master(tmp_path, text))


# -- config allow-lists (config_may_add) -----------------------------------------------------------

def test_print_may_be_added_to_reorderable_logging_functions(submission):
    assert graded(submission, "print_in_step", solution("print_in_step")).passed


@pytest.mark.parametrize("addition, words", [
    ("torch._dynamo.config.reorderable_logging_functions.add(abs)",
     "reorderable_logging_functions gained builtins.abs; this exercise lets it gain only `print`"),
    ("torch._dynamo.config.ignore_logging_functions.add(print)", "ignore_logging_functions was changed"),
    ("torch._dynamo.config.suppress_errors = True", "suppress_errors was changed"),
])
def test_print_in_step_config_changes_beyond_the_allow_list_fail(submission, addition, words):
    cheat = swap(solution("print_in_step"), "torch._dynamo.config.reorderable_logging_functions.add(print)\n",
                 f"torch._dynamo.config.reorderable_logging_functions.add(print)\n{addition}\n")
    result = graded(submission, "print_in_step", cheat)
    assert not result.passed and result.score == 0
    assert words in violations(result), violations(result)


def test_removing_an_entry_from_an_allow_listed_set_is_a_violation():
    """Both sets start empty on 2.13, so this is checked on the rule itself: what was there must stay."""
    from autograder.format.config_rules import config_problems
    from autograder.format.exercise import load
    from autograder.sandbox import probe
    from autograder.sandbox.child import _config_report

    exercise = load("print_in_step")
    rules = {"config_may_add": exercise.config_may_add}
    before = {**probe.config_snapshot(), "reorderable_logging_functions": {print, len}}
    report = _config_report(probe, before, rules)  # what the learner's process sends: the set now lacks both
    problems, kept = config_problems(report, exercise.allow_config, exercise.config_may_add)
    assert len(problems) == 2 and all("lost" in p and "does not allow removing" in p for p in problems)
    assert "reorderable_logging_functions" not in kept


def test_ignore_logging_functions_may_not_swallow_real_work(submission):
    """log_outside lets ignore_logging_functions gain logging functions only: a non-logging callable fails."""
    cheat = swap(starter("log_outside"), 'log = logging.getLogger("course.clip")\n',
                 'log = logging.getLogger("course.clip")\n\n\ndef audit(x):\n    return x.sum()\n\n\n'
                 "torch._dynamo.config.ignore_logging_functions.add(audit)\n")
    result = graded(submission, "log_outside", cheat)
    assert not result.passed and result.score == 0
    assert "ignore_logging_functions gained" in violations(result) and "audit" in violations(result)
    assert "real work included" in violations(result)


def test_ignoring_the_warning_passes_the_config_rule_but_loses_the_message(submission):
    cheat = swap(starter("log_outside"), 'log = logging.getLogger("course.clip")\n',
                 'log = logging.getLogger("course.clip")\ntorch._dynamo.config.ignore_logging_functions.add(log.warning)\n')
    result = graded(submission, "log_outside", cheat)
    assert not result.passed and not violations(result)
    assert status(result)["compiles"] == "passed" and status(result)["warning"] == "failed"
    assert "The message is gone" in message(result, "warning") and "ignore_logging_functions" in message(result, "warning")


def test_config_changed_while_the_code_runs_is_caught(submission):
    cheat = swap(solution("io_calibration"), '    """The eager caller; `step` is the compiled calibrate."""\n',
                 '    """The eager caller; `step` is the compiled calibrate."""\n'
                 "    torch._dynamo.config.suppress_errors = True\n")
    result = graded(submission, "io_calibration", cheat)
    assert not result.passed and "suppress_errors was changed while your code ran" in violations(result)


def test_the_masters_own_config_does_not_leak_into_the_submission(submission):
    """The master of print_in_step adds print to reorderable_logging_functions; the starter must still break."""
    result = graded(submission, "print_in_step", starter("print_in_step"))
    assert status(result)["compiles"] == "failed" and "Failed to trace builtin operator" in message(result, "compiles")


# -- captured output (the FAIR/WRONG variants of print_in_step and log_outside prove the rest) ------

def test_print_in_step_allow_in_graph_on_the_printing_helper_fails(submission):
    cheat = swap(solution("print_in_step"), '    print("loss:", loss, "running:", running.clone())\n',
                 "    say(loss, running.clone())\n")
    cheat = swap(cheat, "torch._dynamo.config.reorderable_logging_functions.add(print)\n",
                 "\n\n@torch.compiler.allow_in_graph\ndef say(loss, running):\n    print(\"loss:\", loss, \"running:\", running)\n"
                 "    return loss\n")
    result = graded(submission, "print_in_step", cheat)
    assert not result.passed
    assert status(result)["no_dodge"] == "failed" and "allow_in_graph" in message(result, "no_dodge")
    assert "say" in message(result, "no_dodge")


def test_print_in_step_disabled_helper_fails(submission):
    cheat = swap(starter("print_in_step"), "def train_step(",
                 "@torch.compiler.disable\ndef say(loss, running):\n    print(\"loss:\", loss, \"running:\", running)\n\n\ndef train_step(")
    cheat = swap(cheat, '    print("loss:", loss, "running:", running)\n', "    say(loss, running)\n")
    result = graded(submission, "print_in_step", cheat)
    assert not result.passed and status(result)["compiles"] == "failed"
    assert "disable" in message(result, "no_dodge") and "is one" in message(result, "no_dodge")


# -- escape hatches (the masters' FAIR/WRONG variants prove allow_in_graph, disable and more) -------

def test_hatch_vendor_break_disabling_the_vendor_function_fails(submission):
    cheat = swap(starter("hatch_vendor_break"), "    h = vendor_gate(h)", "    h = gate_off(h)")
    cheat = swap(cheat, "def block(", "gate_off = torch.compiler.disable(vendor_gate)\n\n\ndef block(")
    result = graded(submission, "hatch_vendor_break", cheat)
    assert not result.passed and status(result)["compiles"] == "failed"
    assert "disable()" in message(result, "compiles")
    assert status(result)["no_dodge"] == "failed" and "gate_off is wrapped by torch.compiler.disable" in message(result, "no_dodge")


def test_hatch_vendor_break_editing_the_vendor_code_fails(submission):
    cheat = swap(starter("hatch_vendor_break"), "    torch._dynamo.graph_break()", "    pass")
    result = graded(submission, "hatch_vendor_break", cheat)
    assert not result.passed
    assert status(result)["compiles"] == "passed" and status(result)["hatch"] == "failed"
    assert "nonstrict_trace" in message(result, "hatch")


def test_hatch_vendor_break_is_compiling_shortcut_fails(submission):
    cheat = swap(starter("hatch_vendor_break"), "    h = vendor_gate(h)",
                 "    if not torch.compiler.is_compiling():\n        h = vendor_gate(h)")
    result = graded(submission, "hatch_vendor_break", cheat)
    assert not result.passed
    assert status(result)["correct"] == "failed" and status(result)["no_dodge"] == "failed"


def test_hatch_vendor_break_escape_hatch_really_holds_the_work(submission):
    result = graded(submission, "hatch_vendor_break", solution("hatch_vendor_break"))
    assert result.passed and "aten.tanh" in message(result, "hatch")


def test_nonstrict_global_allow_in_graph_on_the_impure_helper_fails(submission):
    cheat = swap(starter("nonstrict_global"), "@torch._dynamo.nonstrict_trace\n", "@torch.compiler.allow_in_graph\n")
    result = graded(submission, "nonstrict_global", cheat)
    assert not result.passed
    assert status(result)["hatch"] == "failed" and "allow_in_graph" in message(result, "no_dodge")


# -- custom operators --------------------------------------------------------------------------------

def test_custom_op_curve_wrong_shape_fake_fails_opcheck_only(submission):
    cheat = swap(solution("custom_op_curve"), "    return torch.empty_like(x)\n", "    return x.new_empty(x.shape[0] + 1, *x.shape[1:])\n")
    result = graded(submission, "custom_op_curve", cheat)
    assert not result.passed
    assert status(result)["opcheck"] == "failed" and "test_faketensor" in message(result, "opcheck")
    assert status(result)["compiles"] == "passed" and status(result)["correct"] == "passed"


def test_custom_op_curve_disable_fails(submission):
    cheat = swap(starter("custom_op_curve"), "def sensor_curve(x):", "@torch.compiler.disable\ndef sensor_curve(x):")
    result = graded(submission, "custom_op_curve", cheat)
    assert not result.passed and status(result)["compiles"] == "failed" and status(result)["no_dodge"] == "failed"


def test_custom_op_mutation_patching_opcheck_does_not_help(submission):
    cheat = starter("custom_op_mutation") + "\ntorch.library.opcheck = lambda *args, **kwargs: {}\n"
    result = graded(submission, "custom_op_mutation", cheat)
    assert not result.passed and status(result)["opcheck"] == "failed"


def test_custom_op_mutation_an_op_that_stops_mutating_passes_opcheck_but_changes_the_results(submission):
    """Writing to a copy makes the schema true, but squash relied on the clip: the grade says so."""
    fix = swap(starter("custom_op_mutation"), "    x.clamp_(-limit, limit)\n", "    x = x.clone().clamp_(-limit, limit)\n")
    fix = swap(fix, "    return x.new_empty(())\n", "    return x.new_empty(1)\n")
    result = graded(submission, "custom_op_mutation", fix)
    assert status(result)["opcheck"] == "passed" and status(result)["correct"] == "failed"


# -- the other dodges, per exercise where they apply ---------------------------------------------------

FORCE_EAGER = '\ntorch.compiler.set_stance("force_eager")\n'
SUPPRESS = "\nimport torch._dynamo\ntorch._dynamo.config.suppress_errors = True\n"
EVERY_EXERCISE = ["breaks_iterator", "hatch_vendor_break", "io_calibration", "incorrect_cat", "branch_on_data",
                  "print_in_step", "log_outside", "nonstrict_layer", "custom_op_curve"]


@pytest.mark.parametrize("exercise_id", EVERY_EXERCISE)
def test_force_eager_stance_fails_every_exercise(submission, exercise_id):
    result = graded(submission, exercise_id, starter(exercise_id) + FORCE_EAGER)
    assert not result.passed and result.score == 0 and "stance" in violations(result)


@pytest.mark.parametrize("exercise_id", ["breaks_iterator", "hatch_vendor_break", "branch_on_data", "nonstrict_global"])
def test_suppress_errors_fails(submission, exercise_id):
    result = graded(submission, exercise_id, starter(exercise_id) + SUPPRESS)
    assert not result.passed and result.score == 0 and "suppress_errors" in violations(result)


def test_breaks_iterator_force_eager_inside_the_loop_fails(submission):
    cheat = swap(starter("breaks_iterator"), "        losses.append(step(stream, weight))",
                 "        with torch.compiler.set_stance(\"force_eager\"):\n            losses.append(step(stream, weight))")
    result = graded(submission, "breaks_iterator", cheat)
    assert not result.passed and status(result)["graphs"] == "failed"
    assert "set_stance" in message(result, "no_dodge") and "calls ran compiled code" in message(result, "no_dodge")


def test_breaks_iterator_skipping_the_compiled_step_fails(submission):
    cheat = swap(starter("breaks_iterator"), "        losses.append(step(stream, weight))",
                 "        losses.append(accumulate(stream, weight))")
    result = graded(submission, "breaks_iterator", cheat)
    assert not result.passed and status(result)["graphs"] == "failed"
    assert "calls ran compiled code" in message(result, "no_dodge")


def test_breaks_iterator_is_compiling_shortcut_fails(submission):
    cheat = swap(starter("breaks_iterator"), "    total = 0.0\n",
                 "    total = 0.0\n    if torch.compiler.is_compiling():\n        return torch.zeros(())\n")
    result = graded(submission, "breaks_iterator", cheat)
    assert not result.passed and status(result)["correct"] == "failed" and status(result)["no_dodge"] == "failed"


def test_io_calibration_reorderable_open_as_the_pytorch_hint_suggests_fails(submission):
    cheat = starter("io_calibration").replace("import torch\n", "import torch\n\ntorch._dynamo.config.reorderable_logging_functions.add(open)\n", 1)
    result = graded(submission, "io_calibration", cheat)
    assert not result.passed and "reorderable_logging_functions was changed" in violations(result)


def test_branch_on_data_is_compiling_shortcut_fails(submission):
    cheat = swap(starter("branch_on_data"), "    if x.mean() > 0:",
                 "    if torch.compiler.is_compiling():\n        return inhibit(x)\n    if x.mean() > 0:")
    result = graded(submission, "branch_on_data", cheat)
    assert not result.passed and status(result)["correct"] == "failed"
    assert "is_compiling" in message(result, "no_dodge")


def test_incorrect_cat_disabling_the_function_fails(submission):
    cheat = swap(starter("incorrect_cat"), "def fuse(", "@torch.compiler.disable\ndef fuse(")
    result = graded(submission, "incorrect_cat", cheat)
    assert not result.passed and status(result)["compiles"] == "failed"


def test_a_reorderable_print_torch_drops_in_an_inlined_helper_is_named_as_the_cause(submission):
    """torch 2.13 drops a reorderable print that sits in a function the compiled function calls. The
    learner's own code printed the lines eagerly, so the message says torch lost them, and where."""
    helper = solution("calibrate_frames").replace(
        "def calibrate(frame):",
        "def report(line):\n    print(line)\n\n\ndef calibrate(frame):", 1).replace(
        'print("calibrate: scaled and clamped")', 'report("calibrate: scaled and clamped")', 1)
    assert 'report("calibrate: scaled and clamped")' in helper
    result = graded(submission, "calibrate_frames", helper)
    assert status(result)["lines"] == "failed"
    assert "compiled, 1 of them are lost" in message(result, "lines") and "inlines" in message(result, "lines")
    dropped = solution("calibrate_frames").replace('    print("calibrate: scaled and clamped")\n', "", 1)
    result = graded(submission, "calibrate_frames", dropped)
    assert status(result)["lines"] == "failed" and "are lost" not in message(result, "lines")  # a line never printed is no torch bug

"""Chapter 2, part 2 (working with fullgraph=False, 2.5-2.5.5.6): the new check kinds, the lesson's
coverage, and the ways around each exercise graded as failed.

With fullgraph=False "passing" is: exactly the allowed breaks (matched by Dynamo's break type), no
frame silently skipped, the heavy work in graphs, and a strict setting that is really in place
(proved by a hidden probe variant). Each cheat is made from the exercise's own starter or master
text by string replacement (``swap`` asserts the text it replaces is there), so a change to an
exercise that makes a cheat meaningless fails here loudly. Each grading runs in its own child
process (about 1 to 4 s).
"""

import json
import re
import tomllib
import types

import pytest
import torch

import dataclasses

from autograder.checks import fullgraph_false as fgf
from autograder.checks.core import check_graph_breaks
from autograder.checks.evidence import Evidence, Measured
from autograder.format.build import lesson_sections, syllabus_ids
from autograder.format.exercise import ExerciseFormatError, discover, parse_master
from autograder.format.explain import COURSE_MAP, explain
from autograder.engine.grader import grade
from autograder.sandbox import probe
from autograder.sandbox.kinds.fullgraph_false import helper_code
from autograder.sandbox.learner_code import code_objects
from autograder.sandbox.probe import Measurement, measure
from conftest import ROOT, run_cli
from exercise_text import message, solution, starter, status, swap, violations  # noqa: F401

CHAPTER = "02_graph_breaks"
PART_TWO = "02b_fullgraph_false.py"  # lesson 2b: 2.5, working with fullgraph=False
SEED = 5
IDS = ["compile_step_not_loop", "compile_in_place", "disable_preprocess", "strict_vendor_break", "guard_hot_path",
       "predict_strictness", "flatten_nested", "predict_nested", "skip_loop_print", "skip_with_block", "skip_try_block",
       "skip_recompile_limit", "predict_skips", "isolate_skip", "strict_item_scale", "dead_units_tower", "disable_keeps_hot_eager"]
EX_IDS = {"2.5.1", "2.5.2", "2.5.3", "2.5.4", "2.5.5.1", "2.5.5.2", "2.5.5.3", "2.5.5.4", "2.5.5.6"}


def graded(submission, exercise_id, text):
    return grade(exercise_id, submission(text), seed=SEED)


# -- the chapter part as a whole ---------------------------------------------------------------------

def test_list_json_maps_eight_or_more_exercises_to_every_ex_id_under_2_5():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    listed = [e for e in json.loads(out) if e["chapter_slug"] == CHAPTER and e["syllabus"][0].startswith("2.5")]
    assert sorted(e["id"] for e in listed) == sorted(IDS) and len(listed) >= 8
    covered = {sid for e in listed for sid in e["syllabus"]}
    wanted = {sid for sid, _, ex in syllabus_ids() if ex and sid.startswith("2.5")}
    assert wanted == EX_IDS and wanted <= covered


def test_lesson_has_every_2_5_section_once_in_order_and_mentions_every_exercise():
    text = (ROOT / "lessons" / PART_TWO).read_text()
    found = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", text, re.M)
    wanted = [sid for sid, _, _ in syllabus_ids() if sid == "2.5" or sid.startswith("2.5.")]
    assert len(wanted) >= 18 and [sid for sid in found if sid in wanted] == wanted
    assert len(found) == len(set(found)) and set(found) == set(wanted), "lesson 2b holds 2.5 and nothing else"
    part_one = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", (ROOT / "lessons" / "02a_graph_breaks.py").read_text(), re.M)
    assert [sid for sid in part_one if sid.count(".") < 3] == ["2.1", "2.1.1", "2.1.2", "2.1.3", "2.2", "2.2.1", "2.2.2",
                                                                "2.2.3", "2.3", "2.4"], "part 1 (2.1-2.4) is lesson 2a"
    for exercise_id in IDS:
        assert f"../exercises/{CHAPTER}/{exercise_id}.py" in text and f'check("{exercise_id}")' in text
        assert f"!{{sys.executable}} ../exercises/{CHAPTER}/{exercise_id}.py" in text


def test_no_master_demands_fullgraph_of_a_step_with_backward_or_an_optimizer():
    """On torch 2.13 such a step cannot be one graph (zero_grad is skipped, backward unsupported,
    the optimizer's step breaks on purpose): grade it with an allowed-break list instead."""
    for exercise in discover():
        code = exercise.master.read_text()
        if ".backward(" in code or "torch.optim." in code:
            assert not exercise.compile.get("fullgraph"), exercise.id


def test_every_break_type_a_starter_of_part_2_triggers_has_a_lesson_section(graded):
    course = tomllib.loads(COURSE_MAP.read_text())
    sections = lesson_sections()
    for exercise_id in IDS:
        result = graded(exercise_id, "starter")
        for kind in result.measurements.get("break_types", []):
            assert kind in course, f"{exercise_id}: break type {kind!r} has no entry in autograder/break_lessons.toml"
            assert sections.get(course[kind]["section"]) in ("lessons/02a_graph_breaks.py", f"lessons/{PART_TWO}")


def test_new_break_types_point_to_part_2_sections():
    assert explain("graph break in loop").section == "2.5.5.1"
    assert explain("Graph break under GenericContextWrappingVariable").section == "2.5.5.2"
    assert explain("Unsupported Tensor.backward() call").section == "2.5.1"
    assert explain("Dynamo recompile limit exceeded").section == "2.5.5.4"


# -- header validation -------------------------------------------------------------------------------

MASTER = '''# /// exercise
# format_version = 1
# title = "Demo"
# syllabus = ["2.5.3.2"]
# entry = "f"
# starter_fails = ["guard"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "probe_variant"
# name = "guard"
# helper = "hot"
#
# [[checks]]
# kind = "breaks_allowed"
# allowed = ["Failed to trace builtin operator"]
#
# [[checks]]
# kind = "skipped_frames"
# ops = ["tanh"]
# ///
"""Guard hot."""

import torch


def hot(x):
    return x.tanh()


def f(x):
    # BEGIN SOLUTION
    return hot(x)
    # END SOLUTION
    # BEGIN STARTER
    # return hot(x)  # TODO: guard it
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


def test_new_kinds_parse(tmp_path):
    exercise = parse_master(write_master(tmp_path, MASTER))
    assert [c.kind for c in exercise.checks] == ["probe_variant", "breaks_allowed", "skipped_frames"]
    assert exercise.check("guard").params == {"helper": "hot"}


@pytest.mark.parametrize("old, new, words", [
    ('helper = "hot"', 'helper = "not a name"', "probe_variant needs helper"),
    ('helper = "hot"', 'helper = "hot"\n# variant = "hot_with_break"', "does not take"),  # the grader places the break itself
    ('allowed = ["Failed to trace builtin operator"]', 'allowed = [3]', "breaks_allowed.allowed"),
    ('ops = ["tanh"]', 'ops = ["tanh"]\n# allow = ["f"]', "does not take"),
])
def test_bad_part_2_headers_get_a_clear_error(tmp_path, old, new, words):
    with pytest.raises(ExerciseFormatError, match=words):
        parse_master(write_master(tmp_path, swap(MASTER, old, new)))


# -- the engine's new records and matching rules (no grading child) ---------------------------------

def _loop_with_print(x):
    for step in range(2):
        x = x * 2
        print("step", step)
    return x


def _resumable(x):
    x = torch.tanh(x)
    print("once")
    return x + 1


def test_measure_records_break_types_and_skipped_frames(capsys):
    skipped = measure(_loop_with_print, [(torch.ones(2),)], {}, prefer_file=__file__)
    assert skipped.graphs == 0 and skipped.error is None  # silent under fullgraph=False
    assert [site["function"] for site in skipped.skipped_sites if site["user"]] == ["_loop_with_print"]
    assert [e["type"] for e in skipped.break_events] == ["graph break in loop"]
    assert skipped.break_events[0]["cause"] == "Failed to trace builtin operator" and skipped.break_events[0]["skips_frame"]
    assert skipped.to_dict()["break_types"] == ["graph break in loop"]
    fine = measure(_resumable, [(torch.ones(2),)], {}, prefer_file=__file__)
    assert fine.graphs == 2 and not [s for s in fine.skipped_sites if s["user"]]
    assert fine.break_sites[0]["type"] == "Failed to trace builtin operator"


def _context(measurement, params, kind="breaks_allowed"):
    exercise = parse_master(ROOT / "solutions" / CHAPTER / "skip_loop_print.py")
    spec = types.SimpleNamespace(kind=kind, name=kind, points=1, params=params, section="2.5.5.1")
    ev = Evidence(exercise=exercise, measurement=Measured(dataclasses.asdict(measurement)), calls=1)
    return spec, ev


def test_allowed_breaks_match_the_break_type_not_message_text():
    event = {"type": "Failed to trace builtin operator", "reason": "Failed to trace builtin operator\n  Explanation: print",
             "functions": ["encode", "report"], "function": "report", "frame": "encode", "file": "x.py", "line": 3}
    m = Measurement(break_events=[event])
    assert fgf.check_breaks_allowed(*_context(m, {"allowed": ["Failed to trace builtin operator"]})).status == "passed"
    assert fgf.check_breaks_allowed(*_context(m, {"allowed": ["Failed to trace"]})).status == "failed"  # no substrings
    assert fgf.check_breaks_allowed(*_context(m, {"allowed": ["Explanation: print"]})).status == "failed"
    assert fgf.check_breaks_allowed(*_context(m, {"allowed": ["Failed to trace builtin operator @ report"]})).status == "passed"
    assert fgf.check_breaks_allowed(*_context(m, {"allowed": ["Failed to trace builtin operator @ other"]})).status == "failed"
    kept = fgf.check_breaks_allowed(*_context(m, {"allowed": [event["type"]], "required": ["Call to `torch._dynamo.graph_break()`"]}))
    assert kept.status == "failed" and "is gone" in kept.message
    internal = dict(event, type="Attempted to call function marked as skipped", user=False)  # logging's own frames
    assert fgf.check_breaks_allowed(*_context(Measurement(break_events=[event, internal]),
                                              {"allowed": [event["type"]]})).status == "passed"


def test_graph_breaks_kind_matches_the_recorded_type_and_still_substrings():
    site = {"reason": "Unsupported Tensor.backward() call\n  Explanation: ...", "type": "Unsupported Tensor.backward() call"}
    m = Measurement(graph_breaks=1, break_sites=[site])
    by_type = types.SimpleNamespace(params={"max": 1, "allowed": ["Unsupported Tensor.backward() call"]}, name="b", kind="graph_breaks", points=1, section="2.5.1")
    by_text = types.SimpleNamespace(params={"max": 1, "allowed": ["backward()"]}, name="b", kind="graph_breaks", points=1, section="2.5.1")
    _, ctx = _context(m, {})
    assert check_graph_breaks(by_type, ctx).status == "passed" and check_graph_breaks(by_text, ctx).status == "passed"


def test_skipped_frames_check_names_the_frame_and_respects_functions():
    site = {"function": "torch_dynamo_resume_in_forward_at_12", "file": "/x/exercises/02_graph_breaks/f.py", "line": 12,
            "type": "Failed to trace builtin operator", "user": True}
    helper = dict(site, function="run_callbacks")
    m = Measurement(skipped_sites=[site], graph_targets=["<built-in method matmul of type object at 0x1>", "relu"])
    result = fgf.check_skipped_frames(*_context(m, {}, "skipped_frames"))
    assert result.status == "failed" and "the rest of `forward` after line 12" in result.message
    only = Measurement(skipped_sites=[helper], graph_targets=m.graph_targets)
    assert fgf.check_skipped_frames(*_context(only, {"functions": ["forward"], "ops": ["matmul", "relu"]}, "skipped_frames")).status == "passed"
    missing = fgf.check_skipped_frames(*_context(only, {"functions": ["forward"], "ops": ["layer_norm"]}, "skipped_frames"))
    assert missing.status == "failed" and "No graph holds layer_norm" in missing.message


LEARNER = ("import torch\n\n\n@torch._dynamo.error_on_graph_break(True)\ndef hot(x):\n    return x.sin() + 1\n\n\n"
           "def hot_with(x):\n    y = x.cos()\n    with torch._dynamo.error_on_graph_break(True):\n        return y.sin() + 1\n\n\n"
           "class Block:\n    def forward(self, x):\n        return x.tanh() * 2\n\n\n"
           "Block.forward = torch._dynamo.error_on_graph_break(False)(Block.forward)\n")


def test_probe_finds_the_helper_by_identity_through_wrappers(tmp_path):
    path = str(tmp_path / "learner.py")
    code = compile(LEARNER, path, "exec")
    module = types.ModuleType("learner")
    exec(code, module.__dict__)
    lab = types.SimpleNamespace(submission=module, code_objects=code_objects(code))
    assert helper_code(lab, "hot").co_name == "hot" and helper_code(lab, "hot") in lab.code_objects
    assert helper_code(lab, "Block.forward").co_name == "forward"
    with pytest.raises(LookupError):
        helper_code(lab, "torch")  # a module attribute that is no function of the file
    impostor = types.SimpleNamespace(submission=module, code_objects=[])  # the same names, but no code compiled from the file
    with pytest.raises(LookupError):
        helper_code(impostor, "hot")


def test_the_added_break_keeps_the_learners_code_and_respects_its_with_block(tmp_path):
    path = str(tmp_path / "learner.py")
    code = compile(LEARNER, path, "exec")
    module = types.ModuleType("learner")
    exec(code, module.__dict__)
    lab = types.SimpleNamespace(submission=module, code_objects=code_objects(code))
    before = {name: module.__dict__[name].__code__ for name in ("hot_with",)}
    target = helper_code(lab, "hot_with")
    with probe.added_break(target, None) as seen:
        measure(module.hot_with, [(torch.ones(3),)], {}, prefer_file=path)
    assert len(seen["sites"]) == 2  # x.cos() and y.sin(); the with statement's own calls are no work of the function
    outside = []
    for site in seen["sites"]:  # each site a key: the caller (None: hot_with is where Dynamo started) and the call
        assert site[0] is None
        with probe.added_break(target, site):
            outside.append(measure(module.hot_with, [(torch.ones(3),)], {}, prefer_file=path).error)
    assert outside[0] is None  # x.cos() runs before the strict block: that break is handled
    assert outside[1]["gb_type"] == "Call to `torch._dynamo.graph_break()`" and outside[1]["function"] == "hot_with"
    assert module.hot_with.__code__ is before["hot_with"]  # never rewritten
    assert torch.equal(module.hot_with(torch.ones(3)), torch.ones(3).cos().sin() + 1)


ATTENTION = ("def attention(q, k, v):  # TODO: a break in here must be an error; a break in step must not\n"
             "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n    return torch.softmax(scores, dim=-1) @ v\n")


def test_probe_variant_fails_a_strict_setting_that_covers_only_part_of_the_helper(submission):
    partial = swap(starter("guard_hot_path"), ATTENTION,
                   "def attention(q, k, v):\n    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
                   "    with torch._dynamo.error_on_graph_break(True):\n        return torch.softmax(scores, dim=-1) @ v\n")
    result = graded(submission, "guard_hot_path", partial)
    assert not result.passed and status(result)["guard"] == "failed" and "ran without an error" in message(result, "guard")


def test_probe_variant_passes_a_with_block_and_a_file_without_import_math(submission):
    # Issue 18: the old probe replaced attention's code (deleting a with block) and ran it with the
    # learner's globals, so a learner who dropped `import math` failed with a NameError.
    fair = swap(starter("guard_hot_path"), ATTENTION,
                "def attention(q, k, v):\n    with torch._dynamo.error_on_graph_break(True):\n"
                "        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5\n        return torch.softmax(scores, dim=-1) @ v\n")
    fair = swap(fair, "import math\n", "")
    result = graded(submission, "guard_hot_path", fair)
    assert result.passed, result.message


# -- strictness: removing it, or silencing errors, fails -------------------------------------------

def test_strict_vendor_break_removing_the_outer_strictness_fails(submission):
    cheat = swap(solution("strict_vendor_break"), "    @torch._dynamo.error_on_graph_break(True)\n    def forward", "    def forward")
    result = graded(submission, "strict_vendor_break", cheat)
    assert not result.passed and status(result)["compiles"] == "passed"
    assert status(result)["still_strict"] == "failed" and "ran without an error" in message(result, "still_strict")


def test_strict_vendor_break_tolerating_everything_fails(submission):
    cheat = swap(starter("strict_vendor_break"), "@torch._dynamo.error_on_graph_break(True)", "@torch._dynamo.error_on_graph_break(False)")
    result = graded(submission, "strict_vendor_break", cheat)
    assert not result.passed and status(result)["still_strict"] == "failed"


def test_strict_vendor_break_deleting_the_vendor_break_fails(submission):
    cheat = swap(starter("strict_vendor_break"), "    torch._dynamo.graph_break()  # the vendor's workaround", "    pass  #")
    result = graded(submission, "strict_vendor_break", cheat)
    assert not result.passed and status(result)["breaks"] == "failed" and "is gone" in message(result, "breaks")
    assert status(result)["still_strict"] == "passed"


def test_strict_vendor_break_patching_the_vendor_class_passes(submission):
    fix = swap(starter("strict_vendor_break"), "\n\ndef mix(h, weight):",
               "\n\nVendorBlock.forward = torch._dynamo.error_on_graph_break(False)(VendorBlock.forward)\n\n\ndef mix(h, weight):")
    assert graded(submission, "strict_vendor_break", fix).passed


def test_guard_hot_path_removing_the_guard_fails(submission):
    cheat = swap(solution("guard_hot_path"), "@torch._dynamo.error_on_graph_break(True)\ndef attention", "def attention")
    result = graded(submission, "guard_hot_path", cheat)
    assert not result.passed and status(result)["guard"] == "failed" and status(result)["breaks"] == "passed"


def test_guard_hot_path_a_with_block_at_the_call_site_passes(submission):
    fix = swap(starter("guard_hot_path"), "    out = attention(x @ wq, x @ wk, x @ wv)",
               "    with torch._dynamo.error_on_graph_break(True):\n        out = attention(x @ wq, x @ wk, x @ wv)")
    assert graded(submission, "guard_hot_path", fix).passed


def test_guard_hot_path_making_everything_strict_fails(submission):
    cheat = swap(starter("guard_hot_path"), "def step(", "@torch._dynamo.error_on_graph_break(True)\ndef step(")
    result = graded(submission, "guard_hot_path", cheat)
    assert not result.passed and status(result)["breaks"] == "failed" and "error_on_graph_break(True)" in message(result, "breaks")


def test_guard_hot_path_inlining_the_helper_fails(submission):
    cheat = swap(solution("guard_hot_path"), "    out = attention(x @ wq, x @ wk, x @ wv)",
                 "    q, k, v = x @ wq, x @ wk, x @ wv\n    out = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v")
    result = graded(submission, "guard_hot_path", cheat)
    assert not result.passed and status(result)["guard"] == "failed"


SILENCE = "\nimport torch._dynamo\ntorch._dynamo.config.suppress_errors = True\n"


@pytest.mark.parametrize("exercise_id", ["strict_vendor_break", "guard_hot_path", "disable_preprocess", "skip_loop_print",
                                         "skip_recompile_limit"])
def test_silencing_errors_globally_fails(submission, exercise_id):
    result = graded(submission, exercise_id, solution(exercise_id) + SILENCE)
    assert not result.passed and result.score == 0 and "suppress_errors" in violations(result)


def test_silencing_errors_on_the_strict_starter_fails_too(submission):
    result = graded(submission, "strict_vendor_break", starter("strict_vendor_break") + SILENCE)
    assert not result.passed and result.score == 0 and "suppress_errors" in violations(result)


# -- the other ways around each exercise ------------------------------------------------------------

def test_compile_in_place_saving_orig_mod_loads_but_is_not_the_model(submission):
    cheat = swap(starter("compile_in_place"), "    torch.save(model.state_dict(), path)",
                 "    torch.save({k.removeprefix('_orig_mod.'): v for k, v in model.state_dict().items()}, path)")
    result = graded(submission, "compile_in_place", cheat)
    assert not result.passed and status(result)["checkpoint"] == "passed" and status(result)["same_model"] == "failed"


def test_compile_in_place_not_compiling_at_all_fails(submission):
    cheat = swap(starter("compile_in_place"), "    return torch.compile(model, backend=backend)", "    return model")
    result = graded(submission, "compile_in_place", cheat)
    assert not result.passed and "ran no compiled code" in message(result, "same_model")


def test_compile_in_place_resume_that_starts_afresh_when_a_load_fails_fails(submission):
    """Swallowing the old checkpoint's load error trains on from fresh weights: the resume check
    compares the resumed model with a plain Net holding the checkpoint's weights, and says so."""
    load = '    model.load_state_dict({key.removeprefix("_orig_mod."): value for key, value in checkpoint.items()})\n'
    cheat = swap(solution("compile_in_place"), load,
                 "    try:\n        model.load_state_dict(checkpoint)\n    except RuntimeError:\n        pass  # start afresh\n")
    result = graded(submission, "compile_in_place", cheat)
    assert not result.passed and status(result)["same_model"] == "passed" and status(result)["checkpoint"] == "passed"
    assert status(result)["resumes"] == "failed"
    assert "written from the wrapper" in message(result, "resumes") and "does not hold the checkpoint's weights" in message(result, "resumes")


def test_disable_preprocess_recursive_disable_loses_the_heavy_graph(submission):
    cheat = swap(solution("disable_preprocess"), "@torch.compiler.disable(recursive=False)\ndef preprocess",
                 "@torch.compiler.disable\ndef preprocess")
    result = graded(submission, "disable_preprocess", cheat)
    assert not result.passed and status(result)["breaks"] == "passed"
    assert status(result)["heavy_compiled"] == "failed" and "layer_norm" in message(result, "heavy_compiled")


def test_disable_preprocess_deleting_the_report_fails(submission):
    cheat = swap(starter("disable_preprocess"), "    means = x.mean(dim=1).tolist()\n", "")
    cheat = re.sub(r"    print\(\"batch of\".*\n", "", cheat)
    result = graded(submission, "disable_preprocess", cheat)
    assert not result.passed and status(result)["report"] == "failed"


def test_compile_step_not_loop_disabling_the_step_fails(submission):
    cheat = swap(solution("compile_step_not_loop"), "    def step(x, y):", "    @torch.compiler.disable\n    def step(x, y):")
    result = graded(submission, "compile_step_not_loop", cheat)
    assert not result.passed and status(result)["no_dodge"] == "failed"


def test_flatten_nested_the_allowed_flag_is_a_fix(submission):
    fix = starter("flatten_nested").replace("import torch\n", "import torch\n\ntorch._dynamo.config.nested_graph_breaks = True\n", 1)
    assert graded(submission, "flatten_nested", fix).passed


def test_flatten_nested_hiding_everything_in_a_skipped_frame_fails(submission):
    cheat = swap(starter("flatten_nested"), '    print("hidden mean:", h.mean())',
                 '    for _ in range(1):\n        print("hidden mean:", h.mean())')
    cheat = swap(cheat, "    return block(x * 3, w).relu()", "    for _ in range(1):\n        print(end=\"\")\n    return block(x * 3, w).relu()")
    result = graded(submission, "flatten_nested", cheat)
    assert not result.passed and status(result)["compiled"] == "failed"


def test_skip_loop_print_dropping_the_progress_fails(submission):
    cheat = swap(starter("skip_loop_print"), '        print(f"step {t}: state norm {x.norm():.3f}")', "        pass")
    result = graded(submission, "skip_loop_print", cheat)
    assert not result.passed and status(result)["skips"] == "passed" and status(result)["progress"] == "failed"


def test_skip_loop_print_reorderable_print_is_not_allowed_here(submission):
    cheat = starter("skip_loop_print").replace("import torch\n", "import torch\n\ntorch._dynamo.config.reorderable_logging_functions.add(print)\n", 1)
    result = graded(submission, "skip_loop_print", cheat)
    assert not result.passed and "reorderable_logging_functions" in violations(result)


def test_skip_recompile_limit_raising_the_limit_fails(submission):
    cheat = starter("skip_recompile_limit").replace("import torch\n", "import torch\n\ntorch._dynamo.config.recompile_limit = 64\n", 1)
    result = graded(submission, "skip_recompile_limit", cheat)
    assert not result.passed and "recompile_limit" in violations(result)


def test_isolate_skip_disabling_forward_fails(submission):
    cheat = swap(starter("isolate_skip"), "def forward(x, w, monitors):", "@torch.compiler.disable\ndef forward(x, w, monitors):")
    result = graded(submission, "isolate_skip", cheat)
    assert not result.passed and status(result)["skips"] == "failed"


PREDICTIONS = [("predict_strictness", "predict_outcome", "OUTCOMES"), ("predict_nested", "predict_counts", "COUNTS"),
               ("predict_skips", "predict_outcome", "OUTCOMES")]

OFF_BY_ONE = """
_rule = {function}


def {function}(*args, **kwargs):  # the reference rule, every answer made wrong
    value = _rule(*args, **kwargs)
    if isinstance(value, str):
        return "ok" if value == "error" else "error"
    if isinstance(value, tuple):
        return (value[0] + 1, *value[1:])
    return value + 1


"""


@pytest.mark.parametrize("exercise_id, function, constant", PREDICTIONS)
def test_predictions_are_graded_against_a_live_run(submission, exercise_id, function, constant):
    text = solution(exercise_id)
    line = next(line for line in text.splitlines() if line.startswith(f"{constant} = {{"))
    cheat = swap(text, line, OFF_BY_ONE.format(function=function) + line)
    result = graded(submission, exercise_id, cheat)
    assert not result.passed and "grader measured" in " ".join(c.message for c in result.checks)


@pytest.mark.parametrize("exercise_id, function, constant", PREDICTIONS)
def test_prediction_files_do_not_measure(exercise_id, function, constant):
    """A file that could run its experiments would print its answers."""
    text = starter(exercise_id)
    assert "autograder" not in text.split('"""', 2)[2] and not re.search(r"\btally|\brun_case|\bexperiment\(", text)
    assert f"def {function}(" in text and f"{constant} = {{" in text


@pytest.mark.parametrize("exercise_id, function, constant", PREDICTIONS)
def test_copied_answers_fail_on_hidden_experiments(submission, exercise_id, function, constant):
    """The examples' answers copied from a run, the rule left a guess: the hidden experiments catch it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"copied_{exercise_id}", ROOT / "solutions" / CHAPTER / f"{exercise_id}.py")
    master = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(master)
    text = starter(exercise_id)
    marker = 'if __name__ == "__main__":'
    cheat = swap(text, marker, f"{constant} = {getattr(master, constant)!r}\n\n\n{marker}")
    result = graded(submission, exercise_id, cheat)
    assert not result.passed and "grader measured" in " ".join(c.message for c in result.checks)

"""Dodges that fool an in-process test must not fool the grader."""

import pytest

from autograder.engine.grader import grade
from exercise_text import solution, starter, status, swap, violations


@pytest.fixture(autouse=True)
def watch_only(monkeypatch):
    """The child's own checks (the integrity watch, the config diff) on their own: the static
    policy and the audit hook, which refuse these dodges first, are switched off here
    (tests/test_attacks.py runs them through every layer)."""
    from autograder.engine import grader

    monkeypatch.setitem(grader.DEFENCES, "policy", False)
    monkeypatch.setitem(grader.DEFENCES, "audit", False)


def failed_with_violation(result, words):
    assert not result.passed and result.score == 0
    assert words in violations(result), violations(result)
    assert "Integrity" in result.message


def test_replacing_torch_compile_is_caught(submission):
    cheat = starter("breaks_checkpoint") + (
        "\ndef _fake_compile(fn=None, *, backend=None, fullgraph=False, **kw):\n"
        "    if hasattr(backend, 'frame_count'):\n        backend.frame_count = 1\n    return fn\n"
        "torch.compile = _fake_compile\n")
    failed_with_violation(grade("breaks_checkpoint", submission(cheat), seed=1), "torch.compile")


def test_replacing_dynamo_optimize_is_caught(submission):
    cheat = starter("breaks_checkpoint") + (
        "\nimport torch._dynamo\n"
        "torch._dynamo.optimize = lambda *a, **k: (lambda fn: fn)\n")
    failed_with_violation(grade("breaks_checkpoint", submission(cheat), seed=1), "torch._dynamo.optimize")


def test_force_eager_stance_is_caught_and_undone(submission):
    cheat = starter("breaks_checkpoint") + '\ntorch.compiler.set_stance("force_eager")\n'
    result = grade("breaks_checkpoint", submission(cheat), seed=1)
    failed_with_violation(result, "stance")
    assert result.measurements["error"]["kind"] == "graph_break"  # measured in the default stance anyway


def test_raising_the_recompile_limit_is_caught(submission):
    cheat = starter("recompile_global_log") + "\nimport torch._dynamo\ntorch._dynamo.config.recompile_limit = 1000\n"
    result = grade("recompile_global_log", submission(cheat), seed=1)
    failed_with_violation(result, "recompile_limit")


def test_patching_the_grader_itself_is_caught_or_cannot_reach_the_verdict(submission):
    # The deciding code runs in the judge, another process: patching a copy of it here changes nothing.
    # What measures runs here: swapping its code is caught and undone before it measures.
    cheat = swap(solution("recompile_global_log"), "    return x / n, n\n", "    return x / n\n") + (
        "\nimport autograder.checks.core, autograder.checks.registry, autograder.sandbox.probe\n"
        "autograder.checks.core.compare = lambda *a, **k: None\n"
        "autograder.checks.registry.DECIDERS.clear()\n"
        "autograder.sandbox.probe.measure.__code__ = (lambda *a, **k: None).__code__\n")
    result = grade("recompile_global_log", submission(cheat), seed=1)
    assert not result.passed and result.score == 0
    assert "the code of autograder.sandbox.probe.measurement.measure was swapped" in violations(result)
    assert status(result)["correct"] == "failed"  # measured honestly after all: the judge compared with the reference


def test_is_compiling_shortcut_fails_against_the_reference(submission):
    cheat = swap(solution("breaks_checkpoint"),
                 "    hidden = torch.tanh(x @ weight)\n",
                 "    hidden = torch.tanh(x @ weight)\n    if torch.compiler.is_compiling():\n        return hidden, hidden\n")
    result = grade("breaks_checkpoint", submission(cheat), seed=1)
    assert status(result)["compiles"] == "passed" and status(result)["correct"] == "failed"


def test_disabling_the_graded_function_does_not_dodge_fullgraph(submission):
    cheat = swap(starter("breaks_checkpoint"), "def encode(", "@torch.compiler.disable\ndef encode(")
    result = grade("breaks_checkpoint", submission(cheat), seed=1)
    assert not result.passed
    assert status(result)["graphs"] == "failed"


def test_compile_options_outside_the_allowed_keys_are_ignored(submission):
    cheat = swap(starter("dynamic_batches"), 'COMPILE_OPTIONS = {"dynamic": False}',
                 'COMPILE_OPTIONS = {"dynamic": False, "backend": "eager", "fullgraph": False}')
    result = grade("dynamic_batches", submission(cheat), seed=1)
    assert not result.passed
    assert result.measurements["compile_options"] == {"dynamic": False}


def test_hard_coded_answers_for_a_prediction_exercise_must_match_the_live_run(submission):
    wrong = swap(solution("dynamic_predict"), "    return min(len(graphs), 8)\n", "    return len(graphs)\n")
    result = grade("dynamic_predict", submission(wrong), seed=1)
    assert not result.passed
    assert "static_2_to_11" in result.checks[0].message and "default_3_to_6" not in result.checks[0].message


def test_gradescope_image_keeps_the_solutions_root_only():
    """The grading child reads the master before it becomes nobody; in the Gradescope image nothing
    else may read it: the zip stores masters as 0600 and setup.sh (run as root) makes the folder 0700."""
    from autograder.classroom.gradescope import SETUP_SH, zip_entries

    entries = zip_entries(["breaks_checkpoint"])
    masters = {name: mode for name, (_, mode) in entries.items() if name.startswith("course/solutions/")}
    assert masters and set(masters.values()) == {0o600}
    assert 'chmod 0700' in SETUP_SH and 'chmod 0600' in SETUP_SH and "course/solutions" in SETUP_SH

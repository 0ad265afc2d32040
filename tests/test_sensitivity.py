"""Every `correct` check can tell a wrong answer from a right one: each reference's answers depend on
the inputs the grader draws (autograder/authoring/sensitivity.py; `dev check` reports the same)."""

from pathlib import Path

import pytest

from autograder import discover
from autograder.authoring.sensitivity import changed_answers, insensitive
from autograder.format.exercise import parse_master

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_every_reference_answer_depends_on_its_inputs():
    assert insensitive([e.id for e in discover()]) == {}


def test_a_tower_whose_signal_dies_out_is_reported(tmp_path):
    # skip_eval_serving's tower as it was: 96 ReLU layers with no residual answer one constant.
    source = (ROOT / "solutions/06_guard_overhead/skip_eval_serving.py").read_text()
    residual = "            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request\n"
    assert residual in source
    (tmp_path / "solutions/06_guard_overhead").mkdir(parents=True)
    dying = tmp_path / "solutions/06_guard_overhead/skip_eval_serving.py"
    dying.write_text(source.replace(residual, "            x = torch.relu(layer(x))\n"))
    changed, calls = changed_answers(parse_master(dying))
    assert (changed, calls) == (0, 22)
    changed, calls = changed_answers(parse_master(ROOT / "solutions/06_guard_overhead/skip_eval_serving.py"))
    assert changed == calls == 22


def test_integer_inputs_are_moved_too():
    ranker = next(e for e in discover() if e.id == "ranker_sizes")  # token ids: no floating input at all
    changed, calls = changed_answers(ranker)
    assert changed > 0

"""How ``correct`` compares an answer with the reference: the default tolerance follows the answer's
precision, so a double-precision answer computed in single precision is not "right"."""

import torch

from autograder.checks.core import DEFAULT_TOLERANCE, DOUBLE_TOLERANCE, compare


def _nudged(value: torch.Tensor, relative: float) -> torch.Tensor:
    return value * (1 + relative)


def test_a_float64_answer_computed_in_float32_differs_by_default():
    expected = torch.linspace(-3, 3, 50, dtype=torch.float64).exp()
    through_float32 = expected.float().double()  # what a fix that casts a request to float32 and back returns
    assert compare(through_float32, expected, None, None) is not None
    assert compare(through_float32, expected, *DEFAULT_TOLERANCE) is None  # float32's tolerance would have let it pass


def test_a_float64_answer_reordered_in_double_precision_still_matches():
    expected = torch.randn(64, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    reordered = expected.flip(1).cumsum(1).flip(1) - expected.flip(1).cumsum(1).flip(1) + expected  # rounding of ~1e-16
    assert compare(reordered, expected, None, None) is None
    assert compare(_nudged(expected, 1e-11), expected, None, None) is None


def test_float32_answers_keep_float32_tolerance():
    expected = torch.linspace(-3, 3, 50).exp()
    assert compare(_nudged(expected, 3e-6), expected, None, None) is None
    assert compare(_nudged(expected, 1e-3), expected, None, None) is not None


def test_an_exercise_tolerance_applies_to_every_precision():
    expected = torch.linspace(-3, 3, 50, dtype=torch.float64).exp()
    assert compare(_nudged(expected, 1e-6), expected, 1e-5, 1e-6) is None


def test_python_floats_keep_float32_tolerance():
    assert compare(1.0 + 3e-6, 1.0, None, None) is None
    assert compare(1.01, 1.0, None, None) is not None


def test_the_double_tolerance_is_tighter_than_float32_rounding():
    assert DOUBLE_TOLERANCE[0] < torch.finfo(torch.float32).eps / 10

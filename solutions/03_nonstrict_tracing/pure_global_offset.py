# /// exercise
# format_version = 1
# title = "Keep a traced calibration in step with its zero point"
# syllabus = ["3.1.1", "3.1"]
# entry = "predict"
# starter_fails = ["follows_calibration"]
# hints = [
#   "Run the file: it traces `calibrate` once, then the calibration job replaces CALIBRATION, and the traced result stops matching eager Python.",
#   "Non-strict tracing runs `calibrate` once. A tensor it reads that is not one of its arguments is copied into the graph as a constant (`_tensor_constant0`), and nothing checks it again later.",
#   "Make `calibrate` pure: everything that can change between calls must come in through its parameters (lesson section 3.1.1).",
#   "def calibrate(x, offset): return (x - offset) * 2.0   — and in `predict`, pass the current CALIBRATION: calibrate(x, CALIBRATION).",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "follows_calibration"
# helper = "calibrate"
# hook = "recalibrate"
# points = 2
#
# [[checks]]
# kind = "nonstrict"
# name = "zero_point_reaches"
# helper = "calibrate"
# hook = "recalibrate"
# observe = []
# reaches = "current_zero_point"
# points = 1
#
# [[checks]]
# kind = "nonstrict"
# name = "reads_only_arguments"
# helper = "calibrate"
# hook = "recalibrate"
# observe = []
# pure = true
# points = 1
#
# [[requirements]]
# id = "follows_calibration"
# text = "Every call of `predict` returns what the program computes run eagerly, while the calibration job rebinds `CALIBRATION` between calls."
# checks = ["follows_calibration"]
#
# [[requirements]]
# id = "calibrate_removes_it"
# text = "`calibrate` still removes the zero point itself: on every call, the zero point `predict` sees reaches the graph traced from `calibrate` as an input."
# checks = ["zero_point_reaches"]
#
# [[requirements]]
# id = "reads_only_arguments"
# text = "`calibrate` reads nothing but its arguments: no module-level tensor ends up in its graph as a constant."
# checks = ["reads_only_arguments"]
#
# [[fair]]
# name = "keyword_zero_point"
# why = "the zero point as a keyword-only parameter, passed by name"
#
# [[fair]]
# name = "zero_point_as_a_row"
# why = "the zero point passed as a (1, 8) row that broadcasts over the batch, not in its own shape"
#
# [[fair]]
# name = "add_alpha"
# why = "the subtraction written as torch.add with alpha=-1, so the graph holds an add, not a sub"
#
# [[fair]]
# name = "scaled_first"
# why = "both terms scaled first: 2x - 2 offset"
#
# [[wrong]]
# name = "default_argument"
# breaks = "follows_calibration"
# fails = ["follows_calibration"]
# message = "Call 1 of \\d+: output differs from the reference"
#
# [[wrong]]
# name = "subtracted_before"
# breaks = "calibrate_removes_it"
# fails = ["zero_point_reaches"]
# message = "Call 1 of \\d+: none of the inputs that the graph traced from `calibrate` reads carries the zero point"
#
# [[wrong]]
# name = "refreshed_buffer"
# breaks = "reads_only_arguments"
# fails = ["reads_only_arguments"]
# message = "holds the module-level tensor `ZERO_POINT` as a constant"
#
# [[wrong]]
# name = "global_kept"
# breaks = "follows_calibration"
# fails = ["follows_calibration"]
# message = "Call \\d+ of \\d+: output differs from the reference"
# ///
"""Keep the traced `calibrate` in step with the calibration job.

`calibrate` is the part of `predict` that is traced non-strictly (with `make_fx`, or behind an
escape hatch such as `torch._dynamo.nonstrict_trace`): traced once, and the graph replayed on
every later call. It subtracts the sensor's zero point, the module-level tensor `CALIBRATION`,
which a calibration job replaces between batches. After the first replacement every result is
silently wrong.

The grader traces `calibrate` itself on the first call of `predict`, replaces `CALIBRATION` before
every call, and compares each result with `predict` run eagerly.
"""

import torch

CALIBRATION = torch.zeros(8)  # the sensor's zero point; the calibration job rebinds it between batches


# BEGIN SOLUTION
def calibrate(x, offset):
    """Remove the zero point and rescale. Traced once, non-strictly."""
    return (x - offset) * 2.0
# END SOLUTION
# BEGIN STARTER
# def calibrate(x):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return (x - CALIBRATION) * 2.0  # TODO: the graph replays this with the zero point it saw while tracing. Where should the current one come from?
# END STARTER
# BEGIN FAIR keyword_zero_point
# def calibrate(x, *, zero_point):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return (x - zero_point) * 2.0
# END FAIR
# BEGIN FAIR add_alpha
# def calibrate(x, offset):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return torch.add(x, offset, alpha=-1.0) * 2.0
# END FAIR
# BEGIN FAIR scaled_first
# def calibrate(x, offset):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return 2.0 * x - 2.0 * offset
# END FAIR
# BEGIN WRONG default_argument
# def calibrate(x, offset=CALIBRATION):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return (x - offset) * 2.0
# END WRONG
# BEGIN WRONG subtracted_before
# def calibrate(x):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return x * 2.0  # the zero point is already gone: predict subtracts it
# END WRONG
# BEGIN WRONG refreshed_buffer
# ZERO_POINT = torch.zeros(8)  # one tensor, refreshed in place before every call
#
#
# def calibrate(x):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return (x - ZERO_POINT) * 2.0
# END WRONG
# BEGIN WRONG global_kept
# def calibrate(x, offset):
#     """Remove the zero point and rescale. Traced once, non-strictly."""
#     return (x - CALIBRATION) * 2.0  # the parameter is there, the body still reads the global
# END WRONG


def predict(x):
    """Alarm probability for each channel of a batch of raw sensor readings."""
    # BEGIN SOLUTION
    return torch.sigmoid(calibrate(x, CALIBRATION))
    # END SOLUTION
    # BEGIN STARTER
    # return torch.sigmoid(calibrate(x))
    # END STARTER
    # BEGIN FAIR keyword_zero_point
    # return torch.sigmoid(calibrate(x, zero_point=CALIBRATION))
    # END FAIR
    # BEGIN FAIR zero_point_as_a_row
    # return torch.sigmoid(calibrate(x, CALIBRATION[None]))
    # END FAIR
    # BEGIN WRONG default_argument
    # return torch.sigmoid(calibrate(x))
    # END WRONG
    # BEGIN WRONG subtracted_before
    # return torch.sigmoid(calibrate(x - CALIBRATION))
    # END WRONG
    # BEGIN WRONG refreshed_buffer
    # ZERO_POINT.copy_(CALIBRATION)
    # return torch.sigmoid(calibrate(x))
    # END WRONG


# BEGIN GRADER
_ZERO_POINTS = []


def calls(gen):
    """Six batches of 1 to 6 rows (drawn per seed), and a new zero point drawn per seed before each."""
    _ZERO_POINTS[:] = [torch.randn(8, generator=gen) for _ in range(6)]
    rows = (torch.randperm(6, generator=gen) + 1).tolist()
    return [(torch.randn(n, 8, generator=gen) * 2,) for n in rows]


def current_zero_point(module, args):
    """The zero point the calibration job set for this call."""
    return module.CALIBRATION


def recalibrate(module, number):
    """Rebinds the module-level CALIBRATION to a new zero-point tensor, as the calibration job does."""
    module.CALIBRATION = _ZERO_POINTS[number].clone()
# END GRADER


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_calibrate, traced = calibrate, []

    def calibrate_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            traced.append(make_fx(eager_calibrate, tracing_mode="fake", _allow_non_fake_inputs=True)(*args))
            print(traced[0].code)
        return traced[0](*args)

    x = torch.randn(2, 8)
    for zero_point in (0.0, 0.5, 1.0):
        CALIBRATION = torch.linspace(-zero_point, zero_point, 8)  # the calibration job
        calibrate = eager_calibrate
        eager = predict(x)
        calibrate = calibrate_traced_once
        replayed = predict(x)
        print(f"zero point {zero_point}: traced graph agrees with eager Python: {torch.allclose(replayed, eager)}")

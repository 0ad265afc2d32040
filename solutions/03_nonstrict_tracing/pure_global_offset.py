# /// exercise
# format_version = 1
# title = "A traced helper that reads a global goes stale"
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
# ops = ["sub"]
# points = 4
# ///
"""Make `calibrate` pure, so that its traced graph follows the calibration.

`calibrate` is the part of `predict` that is traced non-strictly (with `make_fx`, or behind an
escape hatch such as `torch._dynamo.nonstrict_trace`): traced once, and the graph replayed on
every later call. It subtracts the sensor's zero point, the module-level tensor `CALIBRATION`,
which a calibration job replaces between batches. The graph keeps the zero point it saw while
tracing, so every later result is silently wrong.

The grader traces `calibrate` itself on the first call of `predict`, replaces `CALIBRATION` before
every call, and compares each result with `predict` run eagerly. Change `calibrate` so that it
reads nothing but its arguments, and let `predict` pass the current zero point in.
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
#     return (x - CALIBRATION) * 2.0  # TODO: CALIBRATION is not an input: the trace keeps the value it saw
# END STARTER


def predict(x):
    """Alarm probability for each channel of a batch of raw sensor readings."""
    # BEGIN SOLUTION
    return torch.sigmoid(calibrate(x, CALIBRATION))
    # END SOLUTION
    # BEGIN STARTER
    # return torch.sigmoid(calibrate(x))
    # END STARTER


# BEGIN GRADER
_ZERO_POINTS = []


def calls(gen):
    _ZERO_POINTS[:] = [torch.randn(8, generator=gen) for _ in range(5)]
    return [(torch.randn(4, 8, generator=gen),) for _ in range(5)]


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

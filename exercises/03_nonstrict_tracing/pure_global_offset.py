# Exercise pure_global_offset: Keep a traced calibration in step with its zero point
# Edit this file, then check it with:  ./course check pure_global_offset
# Stuck? ./course hint pure_global_offset   Start over: ./course reset pure_global_offset
"""Keep the traced `calibrate` in step with the calibration job.

`calibrate` is the part of `predict` that is traced non-strictly (with `make_fx`, or behind an
escape hatch such as `torch._dynamo.nonstrict_trace`): traced once, and the graph replayed on
every later call. It subtracts the sensor's zero point, the module-level tensor `CALIBRATION`,
which a calibration job replaces between batches. After the first replacement every result is
silently wrong.

The grader traces `calibrate` itself on the first call of `predict`, replaces `CALIBRATION` before
every call, and compares each result with `predict` run eagerly.

What the grader checks:
- Every call of `predict` returns what the program computes run eagerly, while the calibration job rebinds `CALIBRATION` between calls.
- `calibrate` still removes the zero point itself: on every call, the zero point `predict` sees reaches the graph traced from `calibrate` as an input.
- `calibrate` reads nothing but its arguments: no module-level tensor ends up in its graph as a constant.
"""

import torch

CALIBRATION = torch.zeros(8)  # the sensor's zero point; the calibration job rebinds it between batches


def calibrate(x):
    """Remove the zero point and rescale. Traced once, non-strictly."""
    return (x - CALIBRATION) * 2.0  # TODO: the graph replays this with the zero point it saw while tracing. Where should the current one come from?


def predict(x):
    """Alarm probability for each channel of a batch of raw sensor readings."""
    return torch.sigmoid(calibrate(x))


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

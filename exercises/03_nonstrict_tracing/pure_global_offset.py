# Exercise pure_global_offset: A traced helper that reads a global goes stale
# Edit this file, then check it with:  ./course check pure_global_offset
# Stuck? ./course hint pure_global_offset   Start over: ./course reset pure_global_offset
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


def calibrate(x):
    """Remove the zero point and rescale. Traced once, non-strictly."""
    return (x - CALIBRATION) * 2.0  # TODO: CALIBRATION is not an input: the trace keeps the value it saw


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

# Exercise custom_op_curve: Wrap a numpy routine in a custom operator
# Edit this file, then check it with:  ./course check custom_op_curve
# Stuck? ./course hint custom_op_curve   Start over: ./course reset custom_op_curve
"""Compile `respond` into one graph although it calls a numpy routine.

`sensor_curve` maps raw sensor readings through a calibration curve with `np.interp`, which
Dynamo cannot trace. Turn `sensor_curve` into a custom operator named `course::sensor_curve`
(keep its numpy body), with a correct fake kernel, so that `respond` compiles into one graph with
`fullgraph=True`. The grader checks the graph, the results, and runs `torch.library.opcheck` on
your operator: a fake kernel that gets the output's shape or dtype wrong fails.
"""

import numpy as np
import torch

CURVE_X = np.linspace(-3.0, 3.0, 13)
CURVE_Y = np.tanh(CURVE_X) * 1.5 + 0.1 * CURVE_X**2


def sensor_curve(x):  # TODO: make this a custom operator course::sensor_curve, with a fake kernel
    values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
    return torch.from_numpy(values.astype(np.float32))


def respond(raw, gain):
    calibrated = sensor_curve(raw)
    return torch.relu(calibrated * gain).mean(dim=-1)


if __name__ == "__main__":
    print(torch.compile(respond, fullgraph=True, backend="eager")(2 * torch.randn(5, 7), torch.ones(7)))

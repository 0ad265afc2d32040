# /// exercise
# format_version = 1
# title = "Wrap a numpy routine in a custom operator"
# syllabus = ["2.4"]
# entry = "respond"
# compile = { fullgraph = true }
# starter_fails = ["compiles", "op", "opcheck"]
# hints = [
#   "Run the file: fullgraph=True stops in sensor_curve at np.interp (\"attempted to trace numpy function unsupported by PyTorch\").",
#   "np.interp has no torch counterpart that Dynamo could map it to, and nonstrict_trace does not help either (try it: Dynamo rejects the call); it runs the function on fake tensors, which have no data to hand to numpy. The routine has to become an operator the compiler treats as a black box.",
#   "Lesson section 2.4: torch.library.custom_op(\"course::sensor_curve\", mutates_args=()) turns the function into an operator; register_fake tells the compiler the shape, dtype and device of its output without running it.",
#   "Decorate sensor_curve with `@torch.library.custom_op(\"course::sensor_curve\", mutates_args=())` (type-annotate x as torch.Tensor and the result as torch.Tensor), then add `@sensor_curve.register_fake` on a function that returns `torch.empty_like(x)`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "escape_hatch"
# name = "op"
# via = "custom_op"
# points = 1
#
# [[checks]]
# kind = "opcheck"
# op = "course::sensor_curve"
# samples = "op_samples"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
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


# BEGIN SOLUTION
@torch.library.custom_op("course::sensor_curve", mutates_args=())
def sensor_curve(x: torch.Tensor) -> torch.Tensor:
    values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
    return torch.from_numpy(values.astype(np.float32))


@sensor_curve.register_fake
def _(x):
    return torch.empty_like(x)
# END SOLUTION
# BEGIN STARTER
# def sensor_curve(x):  # TODO: make this a custom operator course::sensor_curve, with a fake kernel
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
# END STARTER


def respond(raw, gain):
    calibrated = sensor_curve(raw)
    return torch.relu(calibrated * gain).mean(dim=-1)


# BEGIN GRADER
def calls(gen):
    gain = torch.rand(7, generator=gen) + 0.5
    return [(2 * torch.randn(5, 7, generator=gen), gain) for _ in range(3)]


def op_samples(gen):
    return [(torch.randn(5, 7, generator=gen),), (torch.randn(12, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    print(torch.compile(respond, fullgraph=True, backend="eager")(2 * torch.randn(5, 7), torch.ones(7)))

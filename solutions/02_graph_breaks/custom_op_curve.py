# /// exercise
# format_version = 1
# title = "Compile a response that calls a numpy calibration curve"
# syllabus = ["2.4"]
# entry = "respond"
# compile = { fullgraph = true }
# starter_fails = ["compiles", "op", "opcheck"]
# hints = [
#   "Run the file: fullgraph=True stops in sensor_curve at np.interp (\"attempted to trace numpy function unsupported by PyTorch\").",
#   "np.interp has no torch counterpart that Dynamo could map it to, and nonstrict_trace does not help either (try it: Dynamo rejects the call with \"Unsupported output type for nonstrict_trace-ed function\"): a non-strict trace runs the Python on fake tensors, which have no data, and what comes back from numpy is not a traced tensor. The routine has to become an operator the compiler treats as a black box.",
#   "Lesson section 2.4: torch.library.custom_op(\"course::sensor_curve\", mutates_args=()) turns the function into an operator. The compiler never looks inside it: it keeps one opaque call in the graph, runs your real kernel on every call, and believes what the registration says. So register_fake must say the shape, dtype and device of the output for any input, without running numpy.",
#   "Decorate sensor_curve with `@torch.library.custom_op(\"course::sensor_curve\", mutates_args=())` (annotate x as torch.Tensor and the result as torch.Tensor), then add `@sensor_curve.register_fake` on a function that returns `torch.empty_like(x)`.",
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
#
# [[requirements]]
# id = "one_graph"
# text = "`respond` compiles with `fullgraph=True` into one graph that serves every call."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "is_operator"
# text = "`sensor_curve` becomes the custom operator `course::sensor_curve`, its numpy body kept, and the graph calls it."
# checks = ["op"]
#
# [[requirements]]
# id = "honest_registration"
# text = "The operator's registration tells the truth for readings (float32 tensors) of any shape: its fake kernel gives the real output's shape, dtype and device, and it declares exactly what it writes to (`torch.library.opcheck` passes, and no argument it never writes is declared as written)."
# checks = ["opcheck"]
#
# [[requirements]]
# id = "same_results"
# text = "`respond` returns what it returns now."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "functional_form"
# why = "custom_op and register_fake called as functions on a plain kernel instead of used as decorators"
#
# [[fair]]
# name = "dtype_from_input"
# why = "the kernel converts back to the input's dtype, and the fake kernel builds its output with new_empty"
#
# [[fair]]
# name = "library_define"
# why = "the operator declared with torch.library.define, its kernel and fake kernel registered with impl and register_fake, and called through its packet (torch.ops.course.sensor_curve(x), no .default)"
#
# [[wrong]]
# name = "nonstrict_hatch"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "nonstrict_trace"
#
# [[wrong]]
# name = "rewritten_in_torch"
# breaks = "is_operator"
# fails = ["op"]
# message = "calls no custom operator"
#
# [[wrong]]
# name = "fixed_width_fake"
# breaks = "honest_registration"
# fails = ["opcheck"]
# message = "sample 2 of 3.*test_faketensor"
#
# [[wrong]]
# name = "mutates_unknown"
# breaks = "honest_registration"
# fails = ["opcheck"]
# message = "declares `x` as written to"
#
# [[wrong]]
# name = "double_fake"
# breaks = "honest_registration"
# fails = ["opcheck"]
# message = "test_faketensor"
#
# [[wrong]]
# name = "double_kernel"
# breaks = "same_results"
# fails = ["correct"]
# message = "dtype torch.float64, expected torch.float32"
#
# [[wrong]]
# name = "in_graph_opaque"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "allow_in_graph"
# ///
"""Compile `respond` into one graph although it calls a numpy routine.

`sensor_curve` maps raw sensor readings through a calibration curve with `np.interp`, which Dynamo
cannot trace; the numpy code must stay. The grader compiles `respond` with `fullgraph=True`,
checks the graph and the results, and runs `torch.library.opcheck` on the operator
`course::sensor_curve` with inputs of several shapes.
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
# def sensor_curve(x):
#     # TODO: make respond compile with fullgraph=True; this numpy code stays.
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
# END STARTER
# BEGIN FAIR functional_form
# def _curve_kernel(x: torch.Tensor) -> torch.Tensor:
#     return torch.from_numpy(np.interp(x.numpy(), CURVE_X, CURVE_Y).astype(np.float32))
#
#
# def _curve_fake(x):
#     return x.new_empty(x.shape)
#
#
# sensor_curve = torch.library.custom_op("course::sensor_curve", _curve_kernel, mutates_args=())
# torch.library.register_fake("course::sensor_curve", _curve_fake)
# END FAIR
# BEGIN FAIR dtype_from_input
# @torch.library.custom_op("course::sensor_curve", mutates_args=())
# def sensor_curve(x: torch.Tensor) -> torch.Tensor:
#     return torch.as_tensor(np.interp(x.numpy(), CURVE_X, CURVE_Y), dtype=x.dtype)
#
#
# @sensor_curve.register_fake
# def _(x):
#     return x.new_empty(x.shape)
# END FAIR
# BEGIN FAIR library_define
# torch.library.define("course::sensor_curve", "(Tensor x) -> Tensor")
#
#
# @torch.library.impl("course::sensor_curve", "cpu")
# def _sensor_curve_cpu(x):
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
#
#
# @torch.library.register_fake("course::sensor_curve")
# def _sensor_curve_fake(x):
#     return x.new_empty(x.shape, dtype=torch.float32)
#
#
# def sensor_curve(x):
#     return torch.ops.course.sensor_curve(x)
# END FAIR
# BEGIN WRONG nonstrict_hatch
# @torch._dynamo.nonstrict_trace
# def sensor_curve(x):
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
# END WRONG
# BEGIN WRONG rewritten_in_torch
# def sensor_curve(x):
#     return torch.tanh(x) * 1.5 + 0.1 * x**2
# END WRONG
# BEGIN WRONG fixed_width_fake
# @torch.library.custom_op("course::sensor_curve", mutates_args=())
# def sensor_curve(x: torch.Tensor) -> torch.Tensor:
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
#
#
# @sensor_curve.register_fake
# def _(x):
#     return x.new_empty(x.shape[0], 7)
# END WRONG
# BEGIN WRONG mutates_unknown
# @torch.library.custom_op("course::sensor_curve", mutates_args="unknown")  # "unknown": the safe choice?
# def sensor_curve(x: torch.Tensor) -> torch.Tensor:
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
#
#
# @sensor_curve.register_fake
# def _(x):
#     return torch.empty_like(x)
# END WRONG
# BEGIN WRONG double_fake
# @torch.library.custom_op("course::sensor_curve", mutates_args=())
# def sensor_curve(x: torch.Tensor) -> torch.Tensor:
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
#
#
# @sensor_curve.register_fake
# def _(x):
#     return torch.empty_like(x, dtype=torch.float64)
# END WRONG
# BEGIN WRONG double_kernel
# @torch.library.custom_op("course::sensor_curve", mutates_args=())
# def sensor_curve(x: torch.Tensor) -> torch.Tensor:
#     return torch.from_numpy(np.interp(x.numpy(), CURVE_X, CURVE_Y))
#
#
# @sensor_curve.register_fake
# def _(x):
#     return torch.empty_like(x)
# END WRONG
# BEGIN WRONG in_graph_opaque
# @torch.compiler.allow_in_graph
# def sensor_curve(x):
#     values = np.interp(x.numpy(), CURVE_X, CURVE_Y)
#     return torch.from_numpy(values.astype(np.float32))
# END WRONG


def respond(raw, gain):
    calibrated = sensor_curve(raw)
    return torch.relu(calibrated * gain).mean(dim=-1)


# BEGIN GRADER
def calls(gen):
    """Readings on both sides of the curve's ends (np.interp holds the end values there), in
    batches whose number of rows is drawn per seed and stays the same within a grading."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    gain = torch.rand(7, generator=gen) + 0.5
    return [(2 * torch.randn(rows, 7, generator=gen), gain) for _ in range(3)]


def op_samples(gen):
    """The shape respond uses, and shapes it never shows: one dimension, and three."""
    return [(torch.randn(5, 7, generator=gen),), (torch.randn(12, generator=gen),), (torch.randn(2, 3, 4, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    print(torch.compile(respond, fullgraph=True, backend="eager")(2 * torch.randn(5, 7), torch.ones(7)))

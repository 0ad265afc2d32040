# /// exercise
# format_version = 1
# title = "Few guards, and every change of the activation's slope still seen"
# syllabus = ["6.2"]
# entry = "make_model"
# factory = true
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# starter_fails = ["correct"]
# hints = [
#   "Run the file: after `run` changes the slope, the compiled model still answers with the old one. Then run it with TORCH_LOGS=guards and find the guard on `negative_slope`.",
#   "The slope is an attribute of a built-in module (`torch.nn.LeakyReLU`), so both module presets drop the guard that would notice it changing; keeping every guard notices it, but keeps far too many.",
#   "A guard_filter_fn is any function from the list of guard entries to one bool per entry, and each entry has a `name` such as `self._modules['act'].negative_slope` (lesson section 6.2). Start from a preset's answer and keep one more guard.",
#   "def keep_slope(entries):\n    keep = torch.compiler.skip_guard_on_all_nn_modules_unsafe(entries)\n    return [kept or entry.name.endswith(\".negative_slope\") for kept, entry in zip(keep, entries)]\n\nCOMPILE_OPTIONS = {\"guard_filter_fn\": keep_slope}",
# ]
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "guards"
# max_kept = 50
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "follows_slope"
# text = "Every answer uses the slope that `run` set before that call."
# checks = ["correct"]
#
# [[requirements]]
# id = "few_guards"
# text = "At most 50 guards are kept, summed over every compile of the schedule (keeping them all keeps about 190)."
# checks = ["guards"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs the model's compiled code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "tensor_guards_and_slope"
# why = "the tensor-guard preset and the slope's guard: a filter of one's own built on another preset"
#
# [[fair]]
# name = "by_guard_kind"
# why = "keeps guards by their kind (tensors, shapes, global state) and the constant guard on the slope"
#
# [[fair]]
# name = "tensor_slope"
# why = "the slope becomes a tensor the model reads, filled in place by `run`: no guard needs to see it, so the tensor-guard preset is enough"
#
# [[wrong]]
# name = "all_modules"
# breaks = "follows_slope"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "keep_everything"
# breaks = "few_guards"
# fails = ["guards"]
# message = "at most 50 guards may be kept"
#
# [[wrong]]
# name = "inbuilt_and_slope"
# breaks = "few_guards"
# fails = ["guards"]
# message = "at most 50 guards may be kept"
#
# [[wrong]]
# name = "eager_activation"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "print_slope"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "[0-7] of \\d+ calls ran compiled code"
# ///
"""Keep few guards on a model whose activation slope changes between calls.

`Tower` is a 4-layer model with a leaky ReLU. The grader builds it with `make_model()`, compiles
it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, slope)` on batches
of 2 rows; `run` sets the activation's negative slope first, and the schedule changes it now
and then. The starting filter keeps few guards, but the answers go stale.
"""

import torch

# BEGIN SOLUTION
def keep_slope(entries):
    keep = torch.compiler.skip_guard_on_all_nn_modules_unsafe(entries)
    return [kept or entry.name.endswith(".negative_slope") for kept, entry in zip(keep, entries)]


COMPILE_OPTIONS = {"guard_filter_fn": keep_slope}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe}  # TODO: few guards, but the answers stop following the slope
# END STARTER
# BEGIN FAIR tensor_guards_and_slope
# def keep_tensors_and_slope(entries):
#     keep = torch.compiler.keep_tensor_guards_unsafe(entries)
#     return [kept or "negative_slope" in entry.name for kept, entry in zip(keep, entries)]
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": keep_tensors_and_slope}
# END FAIR
# BEGIN FAIR by_guard_kind
# WANTED = {"TENSOR_MATCH", "SHAPE_ENV", "GLOBAL_STATE", "GRAD_MODE", "DEFAULT_DEVICE"}
#
#
# def keep_wanted(entries):
#     return [entry.guard_type in WANTED or (entry.guard_type == "CONSTANT_MATCH" and entry.name.endswith("negative_slope"))
#             for entry in entries]
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": keep_wanted}
# END FAIR
# BEGIN FAIR tensor_slope
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe}
# END FAIR
# BEGIN WRONG all_modules
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END WRONG
# BEGIN WRONG keep_everything
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG
# BEGIN WRONG inbuilt_and_slope
# def keep_slope(entries):
#     keep = torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe(entries)
#     return [kept or entry.name.endswith(".negative_slope") for kept, entry in zip(keep, entries)]
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": keep_slope}
# END WRONG


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.act = torch.nn.LeakyReLU(0.1)
        # BEGIN FAIR tensor_slope
        # self.register_buffer("slope", torch.tensor(0.1))
        # END FAIR

    def forward(self, x):
        # BEGIN WRONG print_slope
        # print(f"slope now {self.act.negative_slope}")
        # END WRONG
        for layer in self.layers:
            # BEGIN SOLUTION
            x = self.act(layer(x))
            # END SOLUTION
            # BEGIN STARTER
            # x = self.act(layer(x))
            # END STARTER
            # BEGIN FAIR tensor_slope
            # h = layer(x)
            # x = torch.where(h >= 0, h, h * self.slope)
            # END FAIR
            # BEGIN WRONG eager_activation
            # x = eager_act(self.act, layer(x))
            # END WRONG
        return x


# BEGIN WRONG eager_activation
# @torch.compiler.disable
# def eager_act(act, h):
#     return act(h)
# END WRONG


def make_model():
    return Tower()


def run(model, x, slope):
    # BEGIN SOLUTION
    model.act.negative_slope = slope
    # END SOLUTION
    # BEGIN STARTER
    # model.act.negative_slope = slope
    # END STARTER
    # BEGIN FAIR tensor_slope
    # model.act.negative_slope = slope
    # model.slope.fill_(slope)
    # END FAIR
    return model(x)


# BEGIN GRADER
def calls(gen):
    """The file's slope (0.1) twice, then a new slope drawn per seed, a return to 0.1, a second
    new slope, and a slope equal to the one before it."""
    first, second = (0.05 + 0.4 * torch.rand(2, generator=gen)).tolist()
    slopes = [0.1, 0.1, first, first, 0.1, second, second, first]
    return [(torch.randn(2, 8, generator=gen), slope) for slope in slopes]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    model, reference = make_model(), make_model()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="eager", options={"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")})
    x = torch.randn(2, 8)
    for slope in (0.1, 0.3):
        run(compiled, x, slope)
        print(f"slope {slope}: compiled == eager: {torch.allclose(run(compiled, x, slope), run(reference, x, slope))}")
    schedule = [(torch.randn(2, 8), slope) for slope in (0.1, 0.1, 0.3, 0.1)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}, driver=run))

# /// exercise
# format_version = 1
# title = "Cheaper guard checks that keep every guard and every answer right"
# syllabus = ["6.3"]
# entry = "make_model"
# factory = true
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# allow_config = ["use_recursive_dict_tags_for_guards", "assume_dunder_attributes_remain_unchanged"]
# starter_fails = ["correct", "guards", "fast_path"]
# hints = [
#   "Run the file: after `run` changes `scale`, the compiled model still answers with the old one. An unsafe filter is only safe when nothing it drops ever changes.",
#   "Lesson section 6.3 has a knob that keeps every guard and checks a module tree faster. Turn it on, drop the filter, and run the file again: one kind of change is still missed.",
#   "The fast path skips a module whose `__dict__` has not changed since the last check. Changing the clip width rebinds a variable the activation function closes over: Dynamo guards it through the function's `__closure__`, which is in no module's `__dict__`. Read what the fast path assumes about function dunders (lesson section 6.3).",
#   "torch._dynamo.config.use_recursive_dict_tags_for_guards = True, COMPILE_OPTIONS = {\"guard_filter_fn\": None}, and either torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False or a `run` that keeps the clip width in a module attribute instead of a variable the activation closes over.",
# ]
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "guards"
# min_kept_fraction = 1.0
# points = 1
#
# [[checks]]
# kind = "guards"
# name = "fast_path"
# config = { use_recursive_dict_tags_for_guards = true }
# points = 1
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "follows_schedule"
# text = "Every answer uses the `scale` and the clip width `k` that `run` set before that call."
# checks = ["correct"]
#
# [[requirements]]
# id = "every_guard"
# text = "Every guard Dynamo installs is kept: no guard filter drops any."
# checks = ["guards"]
#
# [[requirements]]
# id = "fast_path"
# text = "Guards are checked on the fast path of lesson section 6.3, which skips a module tree that has not changed since the last call."
# checks = ["fast_path"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs the model's compiled code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "width_attribute"
# why = "keeps the fast path's assumption true instead of dropping it: `run` sets the clip width as a module attribute and `forward` clips with it, so nothing reached through a function dunder changes"
#
# [[fair]]
# name = "keep_all_filter"
# why = "a guard filter of one's own that keeps every entry, instead of no filter, with the two config settings made in `make_model`"
#
# [[fair]]
# name = "patched_around_call"
# why = "both settings in a `torch._dynamo.config.patch` block around the model call in `run` (the context-manager form of lesson 6.3), nothing set globally: every compile happens inside the block"
#
# [[wrong]]
# name = "set_after_compile"
# breaks = "fast_path"
# fails = ["fast_path"]
# message = "use_recursive_dict_tags_for_guards was False when 1 of \\d+ compile\\(s\\) built their guards \\(the first: compile 1\\)"
#
# [[wrong]]
# name = "tags_only"
# breaks = "follows_schedule"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "tags_and_module_filter"
# breaks = "follows_schedule"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "inbuilt_filter"
# breaks = "every_guard"
# fails = ["guards"]
# message = "at least 100% of the guards must be kept"
#
# [[wrong]]
# name = "filter_removed"
# breaks = "fast_path"
# fails = ["fast_path"]
# message = "use_recursive_dict_tags_for_guards was False when \\d+ of \\d+ compile\\(s\\) built their guards"
#
# [[wrong]]
# name = "eager_model"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
# ///
"""Make each call's guard check cheaper on a model that a service reconfigures between calls.

`Tower` is a 4-layer model with a soft clip after each layer and an output `scale`. The grader
builds it with `make_model()`, compiles it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and
calls `run(model, x, scale, k)` over a schedule: `run` sets the output scale (when it changed) and the clip width
`k` first, and the schedule changes each of them now and then, one at a time. The starting code
keeps the guard check cheap by dropping guards, and some answers go stale.
"""

import torch
import torch._dynamo

# BEGIN SOLUTION
COMPILE_OPTIONS = {"guard_filter_fn": None}
torch._dynamo.config.use_recursive_dict_tags_for_guards = True
torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False
# END SOLUTION
# BEGIN STARTER
# # TODO: make the guard check cheaper without serving a single stale answer.
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END STARTER
# BEGIN FAIR width_attribute
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# END FAIR
# BEGIN FAIR keep_all_filter
# def keep_every_guard(entries):
#     return [True] * len(entries)
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": keep_every_guard}
# END FAIR
# BEGIN WRONG tags_only
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# END WRONG
# BEGIN WRONG tags_and_module_filter
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False
# END WRONG
# BEGIN WRONG inbuilt_filter
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe}
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False
# END WRONG
# BEGIN WRONG filter_removed
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG
# BEGIN FAIR patched_around_call
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END FAIR
# BEGIN WRONG set_after_compile
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG


def make_soft_clip(k=2.0):
    """A soft clip of width ``k``, and the function that changes the width."""

    def soft_clip(v):
        return torch.tanh(v / k) * k

    def set_width(new_k):
        nonlocal k
        k = new_k

    return soft_clip, set_width


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.clip, self.set_width = make_soft_clip()
        self.scale = 2.0
        # BEGIN FAIR width_attribute
        # self.k = 2.0
        # END FAIR

    # BEGIN WRONG eager_model
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        for layer in self.layers:
            # BEGIN SOLUTION
            x = self.clip(layer(x))
            # END SOLUTION
            # BEGIN STARTER
            # x = self.clip(layer(x))
            # END STARTER
            # BEGIN FAIR width_attribute
            # x = torch.tanh(layer(x) / self.k) * self.k
            # END FAIR
        return x * self.scale


def make_model():
    # BEGIN FAIR keep_all_filter
    # torch._dynamo.config.use_recursive_dict_tags_for_guards = True
    # torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False
    # END FAIR
    return Tower()


def run(model, x, scale, k):
    if model.scale != scale:  # the service sets only what changed
        model.scale = scale
    # BEGIN SOLUTION
    model.set_width(k)
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # model.set_width(k)
    # return model(x)
    # END STARTER
    # BEGIN FAIR width_attribute
    # model.k = k
    # return model(x)
    # END FAIR
    # BEGIN FAIR patched_around_call
    # model.set_width(k)
    # with torch._dynamo.config.patch(use_recursive_dict_tags_for_guards=True,
    #                                 assume_dunder_attributes_remain_unchanged=False):
    #     return model(x)
    # END FAIR
    # BEGIN WRONG set_after_compile
    # model.set_width(k)
    # answer = model(x)  # the first call compiles here, before the settings below
    # torch._dynamo.config.use_recursive_dict_tags_for_guards = True
    # torch._dynamo.config.assume_dunder_attributes_remain_unchanged = False
    # return answer
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """The file's settings (2.0, 2.0) twice, then a scale drawn per seed, a clip width drawn per
    seed with the scale unchanged (the change only a dunder guard sees), a return to the first
    scale with the new width, a second new width, and both back to the file's."""
    new_scale, = (1.0 + 3.0 * torch.rand(1, generator=gen)).tolist()
    first_k, second_k = (0.5 + 3.0 * torch.rand(2, generator=gen)).tolist()
    settings = [(2.0, 2.0), (2.0, 2.0), (new_scale, 2.0), (new_scale, first_k), (new_scale, first_k),
                (2.0, first_k), (2.0, second_k), (2.0, 2.0)]
    return [(torch.randn(2, 8, generator=gen) * 3, scale, k) for scale, k in settings]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    model, reference = make_model(), make_model()
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="eager", options={"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")})
    x = torch.randn(2, 8) * 3
    for scale, k in ((2.0, 2.0), (3.0, 2.0), (3.0, 0.5)):
        print(f"scale {scale}, k {k}: compiled == eager: {torch.allclose(run(compiled, x, scale, k), run(reference, x, scale, k))}")
    schedule = [(torch.randn(2, 8), scale, k) for scale, k in ((2.0, 2.0), (3.0, 2.0), (3.0, 0.5))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}, driver=run))
    print("use_recursive_dict_tags_for_guards:", torch._dynamo.config.use_recursive_dict_tags_for_guards)

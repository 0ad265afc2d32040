# /// exercise
# format_version = 1
# title = "Make a compiled model honour the hooks a monitor attaches while it serves"
# syllabus = ["1.3.2", "1.3"]
# entry = "make_model"
# factory = true
# driver = "run"
# allow_config = ["skip_nnmodule_hook_guards"]
# starter_fails = ["correct"]
# hints = [
#   "Run the file: the monitor attaches a clipping hook to the first encoder layer, and the compiled model's answers stay exactly what they were before. The eager model's change.",
#   "Nothing recompiled: no guard failed. A guard is what tells Dynamo that the code it compiled no longer fits, and by default Dynamo installs no guard on a module's hooks, to keep guard evaluation cheap: a hook added after compiling is silently ignored (lesson section 1.3.2).",
#   "Either ask Dynamo to guard the hooks, before anything is compiled (a torch._dynamo.config key, True by default), or have the monitor change something Dynamo does guard, such as which module sits in the encoder.",
#   "At the top of the file: `torch._dynamo.config.skip_nnmodule_hook_guards = False`.",
# ]
#
# [[checks]]
# kind = "correct"
# points = 3
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "honours_hooks"
# text = "While the monitor's clipping hooks are attached, every answer includes their effect; once it detaches them, none does."
# checks = ["correct"]
#
# [[requirements]]
# id = "compiled"
# text = "Every request runs the compiled model, hooked or not: none falls back to eager code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "wrap_the_layer"
# why = "the monitor swaps the layer for a clipping wrapper module, a change of the module tree that Dynamo guards"
#
# [[fair]]
# name = "config_in_builder"
# why = "the hook guards turned on in make_model, which runs before the grader compiles"
#
# [[wrong]]
# name = "late_config"
# breaks = "honours_hooks"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "hook_the_wrapper"
# breaks = "honours_hooks"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "eager_when_hooked"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "ran compiled code"
# ///
"""Make the compiled model honour the clipping hooks a monitor attaches while it serves.

The service compiles `make_model()` once, at start-up, and serves requests through `run(model,
x, event)`. Now and then a monitor steps in through `event`: ("attach", bound) registers a
forward hook on the first encoder layer that clips its output to [-bound, bound], and
("detach",) removes every clipping hook again. The eager model follows each change; the
compiled one does not. The grader builds and compiles the model once and replays such a day of
requests through your `run`.
"""

import torch

# BEGIN SOLUTION
torch._dynamo.config.skip_nnmodule_hook_guards = False
# END SOLUTION
# BEGIN FAIR wrap_the_layer
# # (the compiler's default settings)
# END FAIR
# BEGIN FAIR config_in_builder
# # (set in make_model)
# END FAIR
# BEGIN WRONG late_config
# # (set in run, at the first attach)
# END WRONG
# BEGIN WRONG eager_when_hooked
# # (the compiler's default settings)
# END WRONG


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.tanh(self.encoder(x)))


def make_model():
    # BEGIN FAIR config_in_builder
    # torch._dynamo.config.skip_nnmodule_hook_guards = False
    # END FAIR
    torch.manual_seed(0)
    return Encoder()


def clipping_hook(bound):
    """A forward hook that clips the layer's output to [-bound, bound]."""
    def clip(module, inputs, output):
        return output.clamp(-bound, bound)
    return clip


# BEGIN FAIR wrap_the_layer
# class Clipped(torch.nn.Module):
#     def __init__(self, inner, bound):
#         super().__init__()
#         self.inner, self.bound = inner, bound
#
#     def forward(self, x):
#         return self.inner(x).clamp(-self.bound, self.bound)
# END FAIR


HOOKS = []  # handles of the clipping hooks attached so far


# BEGIN STARTER
# # TODO: after an "attach", the compiled model's answers must change as the eager model's do
# END STARTER
def run(model, x, event=None):
    # BEGIN SOLUTION
    if event is not None and event[0] == "attach":
        HOOKS.append(model.encoder[0].register_forward_hook(clipping_hook(event[1])))
    elif event is not None:
        while HOOKS:
            HOOKS.pop().remove()
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # if event is not None and event[0] == "attach":
    #     HOOKS.append(model.encoder[0].register_forward_hook(clipping_hook(event[1])))
    # elif event is not None:
    #     while HOOKS:
    #         HOOKS.pop().remove()
    # return model(x)
    # END STARTER
    # BEGIN FAIR wrap_the_layer
    # if event is not None and event[0] == "attach":
    #     model.encoder[0] = Clipped(model.encoder[0], event[1])
    # elif event is not None:
    #     while isinstance(model.encoder[0], Clipped):
    #         model.encoder[0] = model.encoder[0].inner
    # return model(x)
    # END FAIR
    # BEGIN WRONG late_config
    # if event is not None and event[0] == "attach":
    #     torch._dynamo.config.skip_nnmodule_hook_guards = False  # too late: the code is compiled
    #     HOOKS.append(model.encoder[0].register_forward_hook(clipping_hook(event[1])))
    # elif event is not None:
    #     while HOOKS:
    #         HOOKS.pop().remove()
    # return model(x)
    # END WRONG
    # BEGIN WRONG hook_the_wrapper
    # if event is not None and event[0] == "attach":
    #     HOOKS.append(model.register_forward_hook(clipping_hook(event[1])))
    # elif event is not None:
    #     while HOOKS:
    #         HOOKS.pop().remove()
    # return model(x)
    # END WRONG
    # BEGIN WRONG eager_when_hooked
    # if event is not None and event[0] == "attach":
    #     HOOKS.append(model.encoder[0].register_forward_hook(clipping_hook(event[1])))
    # elif event is not None:
    #     while HOOKS:
    #         HOOKS.pop().remove()
    # if HOOKS:
    #     with torch.compiler.set_stance("force_eager"):
    #         return model(x)
    # return model(x)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """A served day: plain requests first (so the model compiles without hooks), then an attach,
    a second hook on top of it, a detach, and another attach and detach, with bounds drawn per
    seed small enough to clip the layer's output."""
    bounds = (0.05 + 0.4 * torch.rand(3, generator=gen)).tolist()
    events = [None, None, ("attach", bounds[0]), None, ("attach", bounds[1]), None, ("detach",), None,
              ("attach", bounds[2]), None, ("detach",), None]
    return [(torch.randn(4, 8, generator=gen), event) for event in events]
# END GRADER


if __name__ == "__main__":
    model = make_model()
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(4, 8)
    before = run(compiled, x)
    after = run(compiled, x, ("attach", 0.1))
    print("compiled answer changed after the attach:", not torch.equal(before, after))
    print("eager answer with the hook:", model(x)[0].detach(), "compiled:", after[0].detach())
    run(compiled, x, ("detach",))

# Exercise monitor_hooks: Make a compiled model honour the hooks a monitor attaches while it serves
# Edit this file, then check it with:  ./course check monitor_hooks
# Stuck? ./course hint monitor_hooks   Start over: ./course reset monitor_hooks
"""Make the compiled model honour the clipping hooks a monitor attaches while it serves.

The service compiles `make_model()` once, at start-up, and serves requests through `run(model,
x, event)`. Now and then a monitor steps in through `event`: ("attach", bound) registers a
forward hook on the first encoder layer that clips its output to [-bound, bound], and
("detach",) removes every clipping hook again. The eager model follows each change; the
compiled one does not. The grader builds and compiles the model once and replays such a day of
requests through your `run`.

What the grader checks:
- While the monitor's clipping hooks are attached, every answer includes their effect; once it detaches them, none does.
- Every request runs the compiled model, hooked or not: none falls back to eager code.
"""

import torch


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.tanh(self.encoder(x)))


def make_model():
    torch.manual_seed(0)
    return Encoder()


def clipping_hook(bound):
    """A forward hook that clips the layer's output to [-bound, bound]."""
    def clip(module, inputs, output):
        return output.clamp(-bound, bound)
    return clip


HOOKS = []  # handles of the clipping hooks attached so far


# TODO: after an "attach", the compiled model's answers must change as the eager model's do
def run(model, x, event=None):
    if event is not None and event[0] == "attach":
        HOOKS.append(model.encoder[0].register_forward_hook(clipping_hook(event[1])))
    elif event is not None:
        while HOOKS:
            HOOKS.pop().remove()
    return model(x)


if __name__ == "__main__":
    model = make_model()
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(4, 8)
    before = run(compiled, x)
    after = run(compiled, x, ("attach", 0.1))
    print("compiled answer changed after the attach:", not torch.equal(before, after))
    print("eager answer with the hook:", model(x)[0].detach(), "compiled:", after[0].detach())
    run(compiled, x, ("detach",))

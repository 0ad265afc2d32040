# Exercise dict_tags_first: Cheaper guard checks that keep every guard and every answer right
# Edit this file, then check it with:  ./course check dict_tags_first
# Stuck? ./course hint dict_tags_first   Start over: ./course reset dict_tags_first
"""Make each call's guard check cheaper on a model that a service reconfigures between calls.

`Tower` is a 4-layer model with a soft clip after each layer and an output `scale`. The grader
builds it with `make_model()`, compiles it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and
calls `run(model, x, scale, k)` over a schedule: `run` sets the output scale (when it changed) and the clip width
`k` first, and the schedule changes each of them now and then, one at a time. The starting code
keeps the guard check cheap by dropping guards, and some answers go stale.

What the grader checks:
- Every answer uses the `scale` and the clip width `k` that `run` set before that call.
- Every guard Dynamo installs is kept: no guard filter drops any.
- Guards are checked on the fast path of lesson section 6.3, which skips a module tree that has not changed since the last call.
- Every call runs the model's compiled code.
"""

import torch
import torch._dynamo

# TODO: make the guard check cheaper without serving a single stale answer.
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}


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

    def forward(self, x):
        for layer in self.layers:
            x = self.clip(layer(x))
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, scale, k):
    if model.scale != scale:  # the service sets only what changed
        model.scale = scale
    model.set_width(k)
    return model(x)


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

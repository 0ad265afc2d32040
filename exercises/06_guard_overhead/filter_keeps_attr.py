# Exercise filter_keeps_attr: Few guards, and every change of the activation's slope still seen
# Edit this file, then check it with:  ./course check filter_keeps_attr
# Stuck? ./course hint filter_keeps_attr   Start over: ./course reset filter_keeps_attr
"""Keep few guards on a model whose activation slope changes between calls.

`Tower` is a 4-layer model with a leaky ReLU. The grader builds it with `make_model()`, compiles
it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, slope)` on batches
of 2 rows; `run` sets the activation's negative slope first, and the schedule changes it now
and then. The starting filter keeps few guards, but the answers go stale.

What the grader checks:
- Every answer uses the slope that `run` set before that call.
- At most 50 guards are kept, summed over every compile of the schedule (keeping them all keeps about 190).
- Every call runs the model's compiled code.
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe}  # TODO: few guards, but the answers stop following the slope


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.act = torch.nn.LeakyReLU(0.1)

    def forward(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x


def make_model():
    return Tower()


def run(model, x, slope):
    model.act.negative_slope = slope
    return model(x)


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

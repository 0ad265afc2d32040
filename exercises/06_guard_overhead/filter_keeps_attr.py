# Exercise filter_keeps_attr: A guard filter that drops the guard your schedule needs
# Edit this file, then check it with:  ./course check filter_keeps_attr
# Stuck? ./course hint filter_keeps_attr   Start over: ./course reset filter_keeps_attr
"""Skip guards, but not the one that protects `scale`.

The grader compiles `make_model()` with the `guard_filter_fn` in `COMPILE_OPTIONS` and calls
`run(model, x, scale)` 6 times; `run` sets `model.scale` before each call, and the scale changes
twice. The starting filter drops every module guard, so the change goes unnoticed and answers
are stale. Choose a filter that keeps the results right while keeping at most 60 guards (summed over its compiles).
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}  # TODO: drops the guard on scale too


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, scale):
    model.scale = scale  # the grader's schedule reconfigures the model between calls
    return model(x)


if __name__ == "__main__":
    from autograder.lab import guard_report

    opts = {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}
    schedule = [(torch.randn(2, 8), s) for s in (2.0, 3.0, 2.0)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, opts, driver=globals().get("run")))

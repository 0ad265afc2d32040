# Exercise filter_nn_guards: Drop the nn.Module guards of a model that never changes
# Edit this file, then check it with:  ./course check filter_nn_guards
# Stuck? ./course hint filter_nn_guards   Start over: ./course reset filter_nn_guards
"""Make guard evaluation cheap for a model that never changes.

The grader compiles `make_model()` (32 Linear layers) with the `guard_filter_fn` you put in
`COMPILE_OPTIONS` and calls it 6 times; nothing about the model changes between calls. Keep at
most 25 guards (the default keeps about 300), and cut the profiler's "TorchDynamo Cache Lookup"
time of a typical call (the median) at least 2x against the starting code.
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: every guard on every module is checked on every call


class Tower(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def make_model():
    return Tower()


if __name__ == "__main__":
    from autograder.lab import guard_report

    opts = {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}
    schedule = [(torch.randn(2, 8),) for _ in range(3)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, opts, driver=globals().get("run")))

# Exercise dict_tags_first: Try recursive dict tags before any unsafe guard filter
# Edit this file, then check it with:  ./course check dict_tags_first
# Stuck? ./course hint dict_tags_first   Start over: ./course reset dict_tags_first
"""Speed up guards safely: keep them all, check them faster.

The grader calls `run(model, x, scale)` 6 times; `run` changes `model.scale` twice. The starting
code drops the module guards with an unsafe filter, and answers go stale. Keep every guard (no
filter) and turn on the safe fast path for nested modules, a torch._dynamo config key that is
False by default on torch 2.13.
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}  # TODO: unsafe, and scale changes


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

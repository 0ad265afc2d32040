# Exercise filter_nn_guards: Cheap guards for a model that never changes, at every batch size
# Edit this file, then check it with:  ./course check filter_nn_guards
# Stuck? ./course hint filter_nn_guards   Start over: ./course reset filter_nn_guards
"""Make guard evaluation cheap for a served model that never changes.

The grader compiles `make_model()` (32 Linear layers) with the `guard_filter_fn` in
`COMPILE_OPTIONS` and calls it on batches of several sizes; nothing about the model changes
between calls. Run the file: every compile keeps hundreds of guards, and every call evaluates
the guards of the entries it tries before its graph runs.

What the grader checks:
- Calls are cheap to guard: at most 66 guards are kept, summed over every compile of the schedule (the default keeps about 1200), and a typical call's guard evaluation (the median "TorchDynamo Cache Lookup" time) takes at most half the time the starting code's does.
- Every call returns the model's answer, whatever its batch size (one row included).
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: nothing about the model ever changes; make its calls cheaper to guard


class Tower(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
        heads = (x * self.scale).view(x.shape[0], 2, 4)  # two heads of four features
        return heads.sum(dim=-1)


def make_model():
    return Tower()


if __name__ == "__main__":
    from collections import Counter

    from autograder.lab import guard_report

    def kinds(entries):  # keeps every guard, and prints what the first compile offered
        if not kinds.shown:
            print("guards of the first compile, by kind:", Counter(entry.guard_type for entry in entries).most_common(6))
            kinds.shown = True
        chosen = COMPILE_OPTIONS.get("guard_filter_fn")
        return chosen(entries) if chosen else [True] * len(entries)

    kinds.shown = False
    schedule = [(torch.randn(n, 8),) for n in (2, 2, 5, 1)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"guard_filter_fn": kinds}))

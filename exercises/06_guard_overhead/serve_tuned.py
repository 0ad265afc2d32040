# Exercise serve_tuned: Cut what every call of a served model pays before its graph runs
# Edit this file, then check it with:  ./course check serve_tuned
# Stuck? ./course hint serve_tuned   Start over: ./course reset serve_tuned
"""Tune a model that a service keeps in memory and never changes.

`Server` has 32 Linear layers and a Python branch on the batch size. The grader builds it with
`make_model()`, compiles it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls
`run(model, x, phase)` 22 times: 2 "warmup" calls (batch 1, then batch 4), then 20 "serve" calls
that alternate the two batch sizes. The model's parameters and attributes never change after
`make_model()`. The answers are right already; everything before each graph runs costs too much.

What the grader checks:
- Each graph takes only the real input `x` (at most 1 graph input): no parameter is gathered before a call.
- At most 60 guards are kept, summed over the compiles (keeping them all keeps over 800).
- At least 8 serving calls run with guard evaluation skipped, and a typical call's cache lookup (the median over the 22 calls) is at least 2x cheaper than the starting code's.
- Every answer is right, for both batch sizes, without an error.
- Every call runs the model's compiled code.
"""

import torch
import torch._dynamo

# TODO: run the file and find every cost this chapter can cut; the answers must stay right.
COMPILE_OPTIONS = {"guard_filter_fn": None}


class Server(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 0.5

    def forward(self, x):
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
        if x.shape[0] == 1:  # one request: nothing to compare it with
            return x * self.scale
        return (x - x.mean(0)) * self.scale  # a batch: centre it first


def make_model():
    return Server()


def run(model, x, phase):
    return model(x)


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(n, 8), phase) for n, phase in ((1, "warmup"), (4, "warmup"), (1, "serve"), (4, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"dynamic": False, **COMPILE_OPTIONS}, driver=run))  # dynamic=False as the grader compiles it

# Exercise skip_eval_serving: Skip guard evaluation after warm-up, not before
# Edit this file, then check it with:  ./course check skip_eval_serving
# Stuck? ./course hint skip_eval_serving   Start over: ./course reset skip_eval_serving
"""Serve with guard evaluation skipped, once the warm-up is done.

The grader calls `run(model, x, phase)` 22 times: 2 "warmup" calls (a float32 and a float64
batch), then 20 "serve" calls that alternate the two dtypes. Make at least 8 serving calls run
under `torch.compiler.set_stance(skip_guard_eval_unsafe=True)`, and keep every answer right: the
stance may not be entered before both dtypes have compiled. The grader also wants a typical
call's cache lookup time (the median over the 22 calls) at least 4x lower than the starting code's.
"""

import torch


class Tower(torch.nn.Module):
    def __init__(self, depth=96):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8, dtype=torch.float64) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x.double()))
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, phase):
    return model(x)  # TODO: after warm-up, every call still evaluates every guard


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(2, 8, dtype=d), phase) for d, phase in ((torch.float32, "warmup"), (torch.float64, "warmup"), (torch.float32, "serve"), (torch.float64, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {}, driver=run))

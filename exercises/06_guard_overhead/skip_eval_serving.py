# Exercise skip_eval_serving: Serve warm calls without paying for their guards
# Edit this file, then check it with:  ./course check skip_eval_serving
# Stuck? ./course hint skip_eval_serving   Start over: ./course reset skip_eval_serving
"""Make the serving calls of a warmed-up model cheaper before their graphs run.

`Tower` is a 96-layer model that takes float32 and float64 batches. The grader builds it with
`make_model()`, compiles it, and calls `run(model, x, phase)` 22 times: 2 "warmup" calls (a
float32 batch, then a float64 one), then 20 "serve" calls that alternate the two dtypes. Nothing
about the model changes after the warm-up, yet every serving call still evaluates every guard.

What the grader checks:
- At least 8 of the 20 serving calls run with guard evaluation skipped.
- A typical call's cache lookup (the median over the 22 calls) is at least 4x cheaper than the starting code's.
- Every call, warm-up and serving, of either dtype, gives the right answer without an error.
- Every call runs the model's compiled code.
"""

import torch


class Tower(torch.nn.Module):
    def __init__(self, depth=96):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8, dtype=torch.float64) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        x = x.double()
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, phase):
    # TODO: the serving calls pay for every guard, though the warm-up compiled all they need.
    return model(x)


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(2, 8, dtype=d), phase) for d, phase in ((torch.float32, "warmup"), (torch.float64, "warmup"), (torch.float32, "serve"), (torch.float64, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {}, driver=run))

# Exercise serve_tuned: Tune a served model: one input, few guards, no guard evaluation while serving
# Edit this file, then check it with:  ./course check serve_tuned
# Stuck? ./course hint serve_tuned   Start over: ./course reset serve_tuned
"""Put the guard-overhead knobs together for a model that is served unchanged.

The grader compiles `make_model()` (32 Linear layers; a Python branch on the batch size) with the
`guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, phase)` 22 times: 2 "warmup"
calls (batch 1, then batch 4), then 20 "serve" calls that alternate the two batch sizes. The
model's parameters and attributes never change. Make:

- each graph take only the real input (at most 1 graph input);
- at most 60 guards kept, summed over the compiles;
- at least 8 serving calls run under `set_stance(skip_guard_eval_unsafe=True)`;
- every answer right, for both batch sizes;
- a typical call's cache lookup time (the median over the 22 calls) at least 2x lower than the
  starting code's.
"""

import torch

COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: every parameter is a graph input, every module guard is kept


class Server(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 0.5

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        if x.shape[0] == 1:  # one request: nothing to compare it with
            return x * self.scale
        return (x - x.mean(0)) * self.scale  # a batch: centre it first


def make_model():
    return Server()


def run(model, x, phase):
    return model(x)  # TODO: serving calls still evaluate every guard


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(n, 8), phase) for n, phase in ((1, "warmup"), (4, "warmup"), (1, "serve"), (4, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"dynamic": False, **COMPILE_OPTIONS}, driver=run))  # dynamic=False as the grader compiles it

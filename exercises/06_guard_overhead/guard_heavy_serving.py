# Exercise guard_heavy_serving: Make each small-batch call of a many-module model faster, not only its guard check
# Edit this file, then check it with:  ./course check guard_heavy_serving
# Stuck? ./course hint guard_heavy_serving   Start over: ./course reset guard_heavy_serving
"""Serve a model of many small modules on batches of one and four rows.

`FeatureTower` is 96 small residual blocks, each a per-feature scale and shift (`Affine`), a
`Tanh` and a `Dropout` that is off while serving: 386 modules and 192 parameters for a few
thousand multiply-adds a row. The grader builds it with `make_model()`, compiles it with Inductor
and the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, phase)` 22 times: 2
"warmup" calls (batch 1, then batch 4), then 20 "serve" calls that alternate the two batch sizes.
Nothing about the model changes after `make_model()`. The answers are right, and compiled the
model is already several times faster than eagerly, but most of a compiled call is spent before
its graph runs.

What the grader checks:
- Every answer is right, for both batch sizes, without an error.
- Each graph takes only the real input `x` (at most 1 graph input): no parameter is gathered before a call.
- Every call runs the model's compiled code.
- A serving run through `run` (2 warm-up calls, then 62 serving calls of 1 or 4 rows), the model compiled with Inductor, is at least 1.6x faster than the starting code compiled the same way, and at least 8x faster than your code run eagerly (4x on a CUDA GPU).
"""

import torch
import torch._dynamo

# TODO: a compiled call pays far more before its graph runs than in it. Cut that, keep every answer right.
COMPILE_OPTIONS = {"guard_filter_fn": None}

WIDTH = 16  # features per row


class Affine(torch.nn.Module):
    """A learned scale and shift per feature."""

    def __init__(self, weights, width=WIDTH):
        super().__init__()
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(width, generator=weights))
        self.bias = torch.nn.Parameter(0.1 * torch.randn(width, generator=weights))

    def forward(self, x):
        return x * self.weight + self.bias


class SoftClip(torch.nn.Module):
    """Passes small values through and bends large ones towards +-limit."""

    def __init__(self, limit=3.0):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        return self.limit * torch.tanh(x / self.limit)


class Block(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.affine = Affine(weights)
        self.act = SoftClip()
        self.drop = torch.nn.Dropout(0.1)  # training only: make_model serves the model in eval mode

    def forward(self, x):
        return x + self.drop(self.act(self.affine(x)))


class FeatureTower(torch.nn.Module):
    def __init__(self, weights, depth=96):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(weights) for _ in range(depth)])
        self.scale = 0.1

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        if x.shape[0] == 1:  # one request: nothing to compare it with
            return x * self.scale
        return (x - x.mean(0)) * self.scale  # a batch: centre it first


def make_model():
    weights = torch.Generator().manual_seed(2026)  # stands in for loading a checkpoint: every build has the same weights
    return FeatureTower(weights).eval()


def run(model, x, phase):
    return model(x)


if __name__ == "__main__":
    import time

    from autograder.lab import guard_report

    schedule = [(torch.randn(n, WIDTH), phase) for n, phase in ((1, "warmup"), (4, "warmup"), (1, "serve"), (4, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"dynamic": False, **COMPILE_OPTIONS}, driver=run))  # dynamic=False as the grader compiles it

    torch.set_num_threads(1)  # as the grader times it
    model = make_model()
    compiled = torch.compile(model, dynamic=False, options=COMPILE_OPTIONS)  # Inductor
    with torch.no_grad():
        for x, phase in schedule:
            run(compiled, x, phase)  # compiles both batch sizes
        for name, fn in (("eager", model), ("compiled", compiled)):
            started = time.perf_counter()
            for _ in range(50):
                for x, phase in schedule:
                    run(fn, x, phase)
            print(f"{name}: {1e6 * (time.perf_counter() - started) / (50 * len(schedule)):.0f} us a call")

# Exercise warm_restart: Start a restarted service warm, with only the bytes its first start left behind
# Edit this file, then check it with:  ./course check warm_restart
# Stuck? ./course hint warm_restart   Start over: ./course reset warm_restart
"""Make a restarted service start warm.

The service runs in a container that starts with an empty disk. At start-up it builds the model
with `build()`, compiles it with Inductor (the default backend) and answers its first request.
When a container starts for the first time, its start-up ends with a call to your
`save_compile_state()`, and whatever bytes that returns are stored with the service's image.
Every later container begins with a call to your `load_compile_state(blob)` with those bytes,
before anything is compiled. Today every container starts cold.

What the grader checks:
- A new container that receives only the bytes `save_compile_state()` returned compiles the model from the cache (every graph a cache hit, the same answer) and costs at least 2x less CPU time to its first answer than the first, cold start.
"""

import torch

class Mixer(torch.nn.Module):
    """A tower of low-rank residual layers: each one adds x @ down[i] @ up[i] to x."""

    def __init__(self, depth=32, width=32, rank=4):
        super().__init__()
        self.down = torch.nn.Parameter(torch.randn(depth, width, rank) / 8)
        self.up = torch.nn.Parameter(torch.randn(depth, rank, width) / 8)

    def forward(self, x):
        for down, up in zip(self.down, self.up):
            x = torch.addmm(x, x @ down, up)
        return x


def build():
    torch.manual_seed(0)
    return Mixer()


# TODO: the next container receives only what this returns
def save_compile_state() -> bytes:
    """Called at the end of the first container's start-up, after its first answer."""
    return b""


# TODO: called first in every later container, with the bytes the first one saved
def load_compile_state(blob: bytes) -> None:
    """Called at the start of every later container, before anything is compiled."""
    pass


if __name__ == "__main__":
    from autograder.lab import warm_start_report

    report = warm_start_report(build, (torch.randn(4, 32),), save_compile_state, load_compile_state)
    for name in ("cold", "warm"):
        side = report[name] or {}
        if side.get("error"):
            print(f"{name} start failed: {side['error']}")
            continue
        counters = side.get("counters") or {}
        print(f"{name} start: {side.get('cpu_s') or 0:.2f} s of CPU to the first answer, "
              f"{counters.get('fx_hits', 0)} graph(s) found in the cache, {counters.get('fx_misses', 0)} compiled")
    if report.get("problem"):
        print("save_compile_state()", report["problem"])

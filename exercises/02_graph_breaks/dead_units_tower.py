# Exercise dead_units_tower: Monitor a layer tower without running it eagerly
# Edit this file, then check it with:  ./course check dead_units_tower
# Stuck? ./course hint dead_units_tower   Start over: ./course reset dead_units_tower
"""Monitor a tower of layers while it serves, and keep it compiled.

`Tower` is a stack of `DEPTH` gates (a per-channel gain and shift, then a ReLU). For monitoring, it also reports, per layer, the
fraction of units that are dead (exactly zero after the ReLU) on the batch. The grader builds it
with `make_tower()`, compiles it with the default `fullgraph=False`, and calls `serve(tower, x)` on
small serving batches, timing a pass of its calls with Inductor. The answers are right, but the
monitoring costs the tower its compiled graph: it is no faster compiled than not.

What the grader checks:
- The tower's `forward` compiles with no graph break: no frame of it is skipped, and its layers run inside one graph.
- `serve` returns the tower's output and, per layer, the fraction of its activations that are exactly zero after the ReLU (a float32 tensor of one value per layer), as now.
- A pass of the grader's calls through `serve`, the tower compiled with Inductor, is at least 2x faster than the starting code compiled the same way, and at least 1.5x faster than your code run eagerly (on a CPU and on a CUDA GPU alike).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance.
"""

import torch

DEPTH = 12
WIDTH = 256


class Gate(torch.nn.Module):
    """A per-channel gain and shift, then a ReLU."""

    def __init__(self):
        super().__init__()
        self.gain = torch.nn.Parameter(1 + 0.3 * torch.randn(WIDTH))
        self.shift = torch.nn.Parameter(0.2 * torch.randn(WIDTH))

    def forward(self, x):
        return torch.relu(x * self.gain + self.shift)


class Tower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Gate() for _ in range(DEPTH)])

    def forward(self, x):
        dead = []
        for layer in self.layers:
            x = layer(x)
            dead.append((x == 0).float().mean().item())  # TODO: this tower runs no faster compiled; why?
        return x, torch.tensor(dead)


def make_tower():
    return Tower()


def serve(tower, x):
    """The eager caller; `tower` is the compiled tower."""
    return tower(x)


if __name__ == "__main__":
    out, dead = serve(torch.compile(make_tower()), torch.randn(64, WIDTH))
    print("dead fraction per layer:", [round(d, 3) for d in dead.tolist()])

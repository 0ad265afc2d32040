# Exercise breaks_checkpoint: One graph for an encoder whose activations are saved
# Edit this file, then check it with:  ./course check breaks_checkpoint
# Stuck? ./course hint breaks_checkpoint   Start over: ./course reset breaks_checkpoint
"""Make `encode` compile as one graph with `fullgraph=True`.

`run` is what the training script does on every batch: it compiles `encode`, calls it, and saves
the hidden activations to `path`. Eagerly it works; compiled with `fullgraph=True` it fails. You
may change `encode` and `run` together. The grader compiles and checks `encode` itself; `run` is
yours to keep right, it is not graded.

What the grader checks:
- `encode` compiles as one graph with `fullgraph=True`: no graph break.
- `encode` returns `(embedding, hidden)`: the row-normalised embedding and the hidden activations.
"""

import torch
import torch.nn.functional as F


def encode(x, weight):
    # TODO: make this function compile with fullgraph=True (its caller, run, may change too).
    hidden = torch.tanh(x @ weight)
    torch.save(hidden, "hidden.pt")
    return F.normalize(hidden, dim=-1)


def run(x, weight, path="hidden.pt"):
    """What the training script does: compile encode, call it, keep the activations."""
    # backend="eager" runs the captured graph as it is, without generating code: the trace and its
    # graph breaks are the ones the default backend (Inductor) would see, at a fraction of the time.
    compiled = torch.compile(encode, fullgraph=True, backend="eager")
    return compiled(x, weight)


if __name__ == "__main__":
    x, weight = torch.randn(4, 16), torch.randn(16, 8)
    print(run(x, weight).shape)

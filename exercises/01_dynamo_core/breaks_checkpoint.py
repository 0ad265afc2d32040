# Exercise breaks_checkpoint: Save the activations outside the graph
# Edit this file, then check it with:  ./course check breaks_checkpoint
# Stuck? ./course hint breaks_checkpoint   Start over: ./course reset breaks_checkpoint
"""Keep `encode` in one graph while its hidden activations still get saved.

`encode` is compiled with `fullgraph=True`, so any graph break is an error. It currently saves
its hidden activations with `torch.save` in the middle of the computation, and that call cannot
be traced. Change `encode` so that it returns `(embedding, hidden)`: the caller, `run`, saves
`hidden` outside the compiled code.
"""

import torch
import torch.nn.functional as F


def encode(x, weight):
    hidden = torch.tanh(x @ weight)
    torch.save(hidden, "hidden.pt")  # TODO: this call cannot be traced; move the save out of encode
    return F.normalize(hidden, dim=-1)


def run(x, weight, path="hidden.pt"):
    """What the training script does: compile encode, call it, keep the activations."""
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(encode, fullgraph=True, backend="eager")
    return compiled(x, weight)  # TODO: save the hidden activations here, outside the compiled code


if __name__ == "__main__":
    x, weight = torch.randn(4, 16), torch.randn(16, 8)
    print(run(x, weight).shape)

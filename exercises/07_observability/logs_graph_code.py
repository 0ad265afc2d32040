# Exercise logs_graph_code: Read the captured graph and its guards
# Edit this file, then check it with:  ./course check logs_graph_code
# Stuck? ./course hint logs_graph_code   Start over: ./course reset logs_graph_code
"""Answer four questions about what Dynamo captured, from TORCH_LOGS=graph_code,guards.

`ScoringHead` below is someone else's module; its behaviour depends on the global `CONFIG`. Run
this file with `TORCH_LOGS=graph_code,guards` (running it as it is turns those logs on for you): it
compiles `make_head()` with backend "eager" and calls it once on a batch of shape (3, 8). Fill in
`ANSWERS`:

- `graph_inputs`: how many inputs the captured graph takes (the parameters of its `forward`);
- `baked_constant`: the Python number that the graph multiplies the first linear layer's output by;
- `activation`: the activation function the graph calls, by its torch.nn.functional name;
- `guarded_config_keys`: the keys of `CONFIG` whose value Dynamo guards (a sorted list of strings).

The grader compiles the same module itself, looks at the graph and the guards, and compares.

What the grader checks:
- `ANSWERS` holds what the graph and guard logs of one call of the compiled head show: how many inputs the graph takes, the number it multiplies the first layer's output by, the activation it calls, and the `CONFIG` keys it guards.
"""

import math
import os
import sys

import torch
import torch.nn.functional as F

CONFIG = {
    "activation": "gelu",
    "temperature": 2.0,
    "dropout": 0.1,
    "experimental_activation": "silu",
}


class ScoringHead(torch.nn.Module):
    def __init__(self, width=8, classes=2):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)
        self.out = torch.nn.Linear(width, classes, bias=False)

    def forward(self, x):
        scale = 1 / math.sqrt(x.shape[-1] * CONFIG["temperature"])
        h = self.proj(x) * scale
        name = CONFIG["activation"] if CONFIG["activation"] in ("gelu", "relu") else "tanh"
        h = getattr(F, name)(h)
        if self.training and CONFIG["dropout"] > 0:
            h = F.dropout(h, CONFIG["dropout"])
        return self.out(self.norm(h))


def make_head():
    torch.manual_seed(0)
    return ScoringHead().eval()


EXAMPLE = torch.linspace(-2.0, 2.0, 24).reshape(3, 8)

# TODO: replace each None with what the logs show.
ANSWERS = {
    "graph_inputs": None,
    "baked_constant": None,
    "activation": None,
    "guarded_config_keys": None,
}


if __name__ == "__main__":
    if not os.environ.get("TORCH_LOGS"):
        print("(TORCH_LOGS is not set: turning on graph_code and guards from inside the program)", file=sys.stderr)
        torch._logging.set_logs(graph_code=True, guards=True)
    print(torch.compile(make_head(), backend="eager")(EXAMPLE))

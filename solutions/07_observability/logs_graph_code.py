# /// exercise
# format_version = 1
# title = "Read the captured graph and its guards"
# syllabus = ["7.1"]
# entry = "make_head"
# # The model picks its activation by name (`getattr(F, name)`), which is what the learner reads off the graph.
# scan_allow = ["name:getattr"]
# factory = true
# starter_fails = ["graph_answers"]
# hints = [
#   "Run the file: it turns on TORCH_LOGS=graph_code,guards (or set the variable yourself) and makes one call of the compiled head. The graph is printed after `TRACED GRAPH`, the guards after `GUARDS:`.",
#   "In the graph, `def forward(self, ...)` lists its inputs: the tensor you passed, and every parameter the module uses (Dynamo lifts them to graph inputs). The Python arithmetic that did not involve tensors is gone: its result is a number written into the graph.",
#   "Configuration read in Python decides which code is traced; the branches not taken leave no trace in the graph, only a guard. Look for EQUALS_MATCH lines on G['CONFIG'][...].",
#   "Count the parameters of forward(), copy the number multiplied in `h = linear * ...`, name the activation called after it (as in torch.nn.functional), and list the keys that appear in EQUALS_MATCH guards of G['CONFIG'], sorted.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "graph_answers"
# constant = "ANSWERS"
# truth = "expected_answers"
# points = 4
# ///
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

# BEGIN SOLUTION
ANSWERS = {
    "graph_inputs": 6,
    "baked_constant": 0.25,
    "activation": "gelu",
    "guarded_config_keys": ["activation", "temperature"],
}
# END SOLUTION
# BEGIN STARTER
# # TODO: replace each None with what the logs show.
# ANSWERS = {
#     "graph_inputs": None,
#     "baked_constant": None,
#     "activation": None,
#     "guarded_config_keys": None,
# }
# END STARTER


# BEGIN GRADER
ACTIVATIONS = ("gelu", "relu", "silu", "tanh", "sigmoid", "elu", "mish")


def expected_answers():
    """Capture the graph and the guards of one call, as TORCH_LOGS=graph_code,guards shows them."""
    import re

    from autograder.lab import captured_graphs, guard_names

    (graph,) = captured_graphs(make_head(), EXAMPLE)
    nodes = list(graph.graph.nodes)
    inputs = [n for n in nodes if n.op == "placeholder"]
    first_linear = next(n for n in nodes if n.op == "call_function" and getattr(n.target, "__name__", "") == "linear")
    scaled = next(n for n in first_linear.users if n.op == "call_function")
    constant = next(a for a in scaled.args if isinstance(a, float))
    called = [getattr(n.target, "__name__", str(n.target)) for n in nodes if n.op in ("call_function", "call_method")]
    # The log prints these value guards as EQUALS_MATCH; guard_filter_fn calls them CONSTANT_MATCH.
    keys = sorted({m[1] for _, name in guard_names(make_head(), EXAMPLE)
                   for m in [re.fullmatch(r"G\['CONFIG'\]\['(\w+)'\]", name)] if m})
    return {
        "graph_inputs": len(inputs),
        "baked_constant": constant,
        "activation": next((name for name in called if name in ACTIVATIONS), None),
        "guarded_config_keys": keys,
    }


def calls(gen):
    return []
# END GRADER


if __name__ == "__main__":
    if not os.environ.get("TORCH_LOGS"):
        print("(TORCH_LOGS is not set: turning on graph_code and guards from inside the program)", file=sys.stderr)
        torch._logging.set_logs(graph_code=True, guards=True)
    print(torch.compile(make_head(), backend="eager")(EXAMPLE))

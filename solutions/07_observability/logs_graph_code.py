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
#
# [[requirements]]
# id = "graph_facts"
# text = "`ANSWERS` holds what the graph and guard logs of one call of the compiled head show: how many inputs the graph takes, the number it multiplies the first layer's output by, the activation it calls, and the `CONFIG` keys it guards."
# checks = ["graph_answers"]
#
# [[fair]]
# name = "derived_from_the_module"
# why = "works the answers out from the module and CONFIG (its parameters, the arithmetic, the branch taken) instead of copying them"
#
# [[fair]]
# name = "parsed_from_copied_log"
# why = "pastes the graph's lines and the guard lines in and takes each answer out of them with a regular expression"
#
# [[wrong]]
# name = "only_the_tensor_argument"
# breaks = "graph_facts"
# fails = ["graph_answers"]
# message = "not what the grader measured: graph_inputs[.]"
#
# [[wrong]]
# name = "temperature_forgotten"
# breaks = "graph_facts"
# fails = ["graph_answers"]
# message = "not what the grader measured: baked_constant[.]"
#
# [[wrong]]
# name = "module_class_name"
# breaks = "graph_facts"
# fails = ["graph_answers"]
# message = "not what the grader measured: activation[.]"
#
# [[wrong]]
# name = "every_key_read_is_guarded"
# breaks = "graph_facts"
# fails = ["graph_answers"]
# message = "not what the grader measured: guarded_config_keys[.]"
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
# BEGIN FAIR derived_from_the_module
# ANSWERS = {
#     "graph_inputs": 1 + len(list(make_head().parameters())),  # x, then every parameter lifted to an input
#     "baked_constant": 1 / math.sqrt(EXAMPLE.shape[-1] * CONFIG["temperature"]),
#     "activation": CONFIG["activation"],  # "gelu" is one of the two names the branch keeps
#     "guarded_config_keys": sorted(["temperature", "activation"]),  # dropout is never read in eval mode
# }
# END FAIR
# BEGIN FAIR parsed_from_copied_log
# import re
#
# GRAPH = """
# def forward(self, L_x_: "f32[3, 8][8, 1]cpu", L_self_modules_proj_parameters_weight_: "f32[8, 8][8, 1]cpu", L_self_modules_proj_parameters_bias_: "f32[8][1]cpu", L_self_modules_norm_parameters_weight_: "f32[8][1]cpu", L_self_modules_norm_parameters_bias_: "f32[8][1]cpu", L_self_modules_out_parameters_weight_: "f32[2, 8][8, 1]cpu"):
#     h: "f32[3, 8][8, 1]cpu" = linear * 0.25;  linear = None
#     h_1: "f32[3, 8][8, 1]cpu" = torch.nn.functional.gelu(h);  h = None
# """
# GUARDS = """
# | | | | +- EQUALS_MATCH: G['CONFIG']['activation'] == 'gelu'
# | | | | +- EQUALS_MATCH: G['CONFIG']['temperature'] == 2.0
# | | | | | | | +- EQUALS_MATCH: L['self']._modules['norm'].eps == 1e-05
# """
# ANSWERS = {
#     "graph_inputs": len(re.findall(r"\bL_\w+:", GRAPH.split("):")[0])),
#     "baked_constant": float(re.search(r"= linear \* ([0-9.]+)", GRAPH)[1]),
#     "activation": re.search(r"torch\.nn\.functional\.(\w+)\(h\)", GRAPH)[1],
#     "guarded_config_keys": sorted(re.findall(r"G\['CONFIG'\]\['(\w+)'\]", GUARDS)),
# }
# END FAIR
# BEGIN WRONG only_the_tensor_argument
# ANSWERS = {
#     "graph_inputs": 1,
#     "baked_constant": 0.25,
#     "activation": "gelu",
#     "guarded_config_keys": ["activation", "temperature"],
# }
# END WRONG
# BEGIN WRONG temperature_forgotten
# ANSWERS = {
#     "graph_inputs": 6,
#     "baked_constant": 1 / math.sqrt(8),
#     "activation": "gelu",
#     "guarded_config_keys": ["activation", "temperature"],
# }
# END WRONG
# BEGIN WRONG module_class_name
# ANSWERS = {
#     "graph_inputs": 6,
#     "baked_constant": 0.25,
#     "activation": "GELU",
#     "guarded_config_keys": ["activation", "temperature"],
# }
# END WRONG
# BEGIN WRONG every_key_read_is_guarded
# ANSWERS = {
#     "graph_inputs": 6,
#     "baked_constant": 0.25,
#     "activation": "gelu",
#     "guarded_config_keys": ["activation", "dropout", "temperature"],
# }
# END WRONG


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

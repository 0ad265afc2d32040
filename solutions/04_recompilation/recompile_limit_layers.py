# /// exercise
# format_version = 1
# title = "Run all twelve layers of a stack compiled"
# syllabus = ["4.4"]
# entry = "layer"
# submission_may_set = ["recompile_limit"]
# allow_config = ["recompile_limit"]
# starter_fails = ["compiled_calls", "graphs"]
# hints = [
#   "Run the file: layers 0 to 7 compile, then Dynamo logs that it hit config.recompile_limit (8), and from then on layers 8 to 11, which match no compiled graph, run in plain Python on every pass.",
#   "Here the recompiles are expected: each layer applies a different activation, picked from a Python list by `index`, so each index needs its own graph. Twelve graphs are the right number, not a storm.",
#   "Raise the limit to what the function needs: per function with torch.compile(..., recompile_limit=N), which the grader reads from COMPILE_OPTIONS, or for everything with torch._dynamo.config.recompile_limit (lesson section 4.4). Keep it tight, so that a real storm is still stopped.",
#   "COMPILE_OPTIONS = {\"recompile_limit\": 12}",
# ]
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 12
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "limit_in_effect"
# name = "limit_stays_tight"
# min = 12  # the graphs `layer` needs
# max = 24  # twice that: a real recompile storm is still stopped
# points = 1
#
# [[requirements]]
# id = "all_compiled"
# text = "Every call, in both passes over the stack, runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "own_graphs"
# text = "Each layer keeps a graph of its own, compiled once: 12 graphs in all."
# checks = ["graphs"]
#
# [[requirements]]
# id = "tight_limit"
# text = "The recompile limit in effect is at least the number of graphs `layer` needs and at most twice that, so that a real recompile storm is still stopped."
# checks = ["limit_stays_tight"]
#
# [[requirements]]
# id = "same_layers"
# text = "`layer(x, index)` returns what layer `index` of the stack returns now."
# checks = ["correct"]
#
# [[fair]]
# name = "global_limit"
# why = "the limit raised for the whole program in torch._dynamo.config, with room to spare"
#
# [[fair]]
# name = "twice_needed"
# why = "the per-function limit at its upper edge, twice the layers, computed from the list"
#
# [[wrong]]
# name = "off_by_one"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "22 of 24 calls ran compiled code"
#
# [[wrong]]
# name = "every_activation"
# breaks = "own_graphs"
# fails = ["graphs"]
# message = "2 graph\\(s\\) compiled over 24 call\\(s\\); expected exactly 12"
#
# [[wrong]]
# name = "no_ceiling"
# breaks = "tight_limit"
# fails = ["limit_stays_tight"]
# message = "is more than (twice the 12 graphs|24)"
#
# [[wrong]]
# name = "folded_layers"
# breaks = "same_layers"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Let every layer of the stack run compiled.

`layer(x, index)` is layer `index` of a 12-layer stack whose layers use different activation
functions, looked up in a Python list. Each index therefore gets its own graph: twelve graphs,
compiled once each and reused on every later pass. The grader compiles `layer` with the options
in `COMPILE_OPTIONS` and runs the stack twice, in an order of its own. Compiled, four of the
layers run eagerly on every pass, without any error.
"""

import torch
import torch.nn.functional as F

ACTIVATIONS = [torch.relu, torch.tanh, torch.sigmoid, F.gelu, F.silu, F.elu,
               F.softplus, F.mish, F.selu, F.celu, F.hardswish, F.logsigmoid]
WEIGHTS = [torch.randn(16, 16) / 4 for _ in ACTIVATIONS]

# BEGIN SOLUTION
COMPILE_OPTIONS = {"recompile_limit": 12}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {}
# END STARTER
# BEGIN FAIR global_limit
# COMPILE_OPTIONS = {}
# torch._dynamo.config.recompile_limit = 16
# END FAIR
# BEGIN FAIR twice_needed
# COMPILE_OPTIONS = {"recompile_limit": 2 * len(ACTIVATIONS)}
# END FAIR
# BEGIN WRONG off_by_one
# COMPILE_OPTIONS = {"recompile_limit": 11}  # the first compile, then 11 recompiles
# END WRONG
# BEGIN WRONG every_activation
# COMPILE_OPTIONS = {}
# END WRONG
# BEGIN WRONG no_ceiling
# COMPILE_OPTIONS = {"recompile_limit": 1000}
# END WRONG
# BEGIN WRONG folded_layers
# COMPILE_OPTIONS = {}
# END WRONG


def layer(x, index):
    # BEGIN SOLUTION
    return x + ACTIVATIONS[index](x @ WEIGHTS[index])
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: some layers run eagerly on every pass. Let every layer run compiled.
    # return x + ACTIVATIONS[index](x @ WEIGHTS[index])
    # END STARTER
    # BEGIN WRONG every_activation
    # every = torch.stack([act(x @ w) for act, w in zip(ACTIVATIONS, WEIGHTS)])  # one graph for every index
    # return x + every[index]
    # END WRONG
    # BEGIN WRONG folded_layers
    # index = index % 8  # stay within the default limit of 8 graphs
    # return x + ACTIVATIONS[index](x @ WEIGHTS[index])
    # END WRONG


# BEGIN GRADER
NEEDED = 12  # the graphs `layer` needs: one per layer


def calls(gen):
    """The stack twice (24 calls), each pass in an order of layers drawn per seed; rows drawn per seed."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    return [(torch.randn(rows, 16, generator=gen), index)
            for _ in range(2) for index in torch.randperm(NEEDED, generator=gen).tolist()]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(layer, backend="eager", **COMPILE_OPTIONS)
    for _ in range(2):
        x = torch.randn(4, 16)
        for index in range(12):
            x = compiled(x, index)
    print("stack ran twice")

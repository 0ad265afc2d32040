# /// exercise
# format_version = 1
# title = "Twelve layers, twelve graphs, and a limit of eight"
# syllabus = ["4.4"]
# entry = "layer"
# submission_may_set = ["recompile_limit"]
# allow_config = ["recompile_limit"]
# starter_fails = ["compiled_calls", "graphs"]
# hints = [
#   "Run the file: layers 0 to 7 compile, then Dynamo logs that it hit config.recompile_limit (8) and layers 8 to 11 run in plain Python, on every pass.",
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
# ///
"""Let every layer of the stack run compiled.

`layer(x, index)` is layer `index` of a 12-layer stack whose layers use different activation
functions, looked up in a Python list. Each index therefore gets its own graph: twelve graphs,
compiled once each and reused on every later pass. But Dynamo keeps at most `recompile_limit`
(8) graphs per function, so layers 8 to 11 always run eagerly, without any error.

The grader compiles `layer` with the options in `COMPILE_OPTIONS` (it reads only
`recompile_limit` from it) and runs the stack twice. Make all 24 calls run compiled, with a
limit that fits the 12 variants the function needs: at most twice that, so that a real
recompile storm would still be stopped.
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
# COMPILE_OPTIONS = {}  # TODO: the default limit, 8, is too low for a function that needs 12 graphs
# END STARTER


def layer(x, index):
    return x + ACTIVATIONS[index](x @ WEIGHTS[index])


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 16, generator=gen), index) for _ in range(2) for index in range(12)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(layer, backend="eager", **COMPILE_OPTIONS)  # Dynamo only: the same graphs and limit
    for _ in range(2):
        x = torch.randn(4, 16)
        for index in range(12):
            x = compiled(x, index)
    print("stack ran twice")

# Exercise recompile_limit_layers: Twelve layers, twelve graphs, and a limit of eight
# Edit this file, then check it with:  ./course check recompile_limit_layers
# Stuck? ./course hint recompile_limit_layers   Start over: ./course reset recompile_limit_layers
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

COMPILE_OPTIONS = {}  # TODO: the default limit, 8, is too low for a function that needs 12 graphs


def layer(x, index):
    return x + ACTIVATIONS[index](x @ WEIGHTS[index])


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(layer, backend="eager", **COMPILE_OPTIONS)  # Dynamo only: the same graphs and limit
    for _ in range(2):
        x = torch.randn(4, 16)
        for index in range(12):
            x = compiled(x, index)
    print("stack ran twice")

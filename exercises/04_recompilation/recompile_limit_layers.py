# Exercise recompile_limit_layers: Run all twelve layers of a stack compiled
# Edit this file, then check it with:  ./course check recompile_limit_layers
# Stuck? ./course hint recompile_limit_layers   Start over: ./course reset recompile_limit_layers
"""Let every layer of the stack run compiled.

`layer(x, index)` is layer `index` of a 12-layer stack whose layers use different activation
functions, looked up in a Python list. Each index therefore gets its own graph: twelve graphs,
compiled once each and reused on every later pass. The grader compiles `layer` with the options
in `COMPILE_OPTIONS` and runs the stack twice, in an order of its own. Compiled, four of the
layers run eagerly on every pass, without any error.

What the grader checks:
- Every call, in both passes over the stack, runs compiled code.
- Each layer keeps a graph of its own, compiled once: 12 graphs in all.
- The recompile limit in effect is at least the number of graphs `layer` needs and at most twice that, so that a real recompile storm is still stopped.
- `layer(x, index)` returns what layer `index` of the stack returns now.
"""

import torch
import torch.nn.functional as F

ACTIVATIONS = [torch.relu, torch.tanh, torch.sigmoid, F.gelu, F.silu, F.elu,
               F.softplus, F.mish, F.selu, F.celu, F.hardswish, F.logsigmoid]
WEIGHTS = [torch.randn(16, 16) / 4 for _ in ACTIVATIONS]

COMPILE_OPTIONS = {}


def layer(x, index):
    # TODO: some layers run eagerly on every pass. Let every layer run compiled.
    return x + ACTIVATIONS[index](x @ WEIGHTS[index])


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

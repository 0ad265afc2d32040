# Exercise recompile_global_log: Stop the recompile storm
# Edit this file, then check it with:  ./course check recompile_global_log
# Stuck? ./course hint recompile_global_log   Start over: ./course reset recompile_global_log
"""Stop `normalize` from recompiling on every call.

`normalize(x)` divides `x` by its norm and keeps a log of every norm in the module-level list
`norms`. `process` is one step of the data pipeline: the grader compiles `normalize` and calls
`process(compiled_normalize, x)` for each batch. Compiled, `normalize` recompiles on every call
until Dynamo gives up on it.

What the grader checks:
- One graph, compiled once, serves every call: no recompile and no graph break.
- Every call of the compiled `normalize` runs compiled code.
- `process` returns what it returns now: the normalised batch, and the log of every norm so far, in order.
"""

import torch

norms = []


def normalize(x):
    # TODO: make one graph serve every call of this function.
    n = x.norm()
    norms.append(n)
    return x / n


def process(normalize, x):
    """One step of the data pipeline: normalise the batch with `normalize` (the compiled function)
    and log its norm; returns the batch and the log so far."""
    y = normalize(x)
    return y, torch.tensor(norms)


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graph as it is, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(normalize, backend="eager")
    for _ in range(12):
        batch, log = process(compiled, torch.randn(4, 8))
    print(f"{len(log)} norms logged")

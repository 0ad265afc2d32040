# Exercise recompile_global_log: Stop the recompile storm
# Edit this file, then check it with:  ./course check recompile_global_log
# Stuck? ./course hint recompile_global_log   Start over: ./course reset recompile_global_log
"""Stop `normalize` from recompiling on every call.

`normalize(x)` divides `x` by its norm, and it also keeps a log of every norm in the module-level
list `norms`. Compiled, each call mutates that global list, each call's guards fail, and Dynamo
compiles again, until the recompile limit makes every later call run eagerly. Change `normalize`
to return `(x / norm, norm)` and keep the log in the caller, `process`, so that one graph serves
every call.
"""

import torch

norms = []


def normalize(x):
    n = x.norm()
    norms.append(n)  # TODO: mutating a global list inside the compiled function
    return x / n


def process(batches):
    """What the data pipeline does: normalize every batch and keep the norms."""
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(normalize, backend="eager")
    out = []
    for x in batches:
        out.append(compiled(x))
    return out


if __name__ == "__main__":
    import torch._logging
    torch._logging.set_logs(recompiles=True)
    process([torch.randn(4, 8) for _ in range(12)])
    print(f"{len(norms)} norms logged")

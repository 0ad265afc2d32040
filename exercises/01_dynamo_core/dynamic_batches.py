# Exercise dynamic_batches: One graph for every batch size
# Edit this file, then check it with:  ./course check dynamic_batches
# Stuck? ./course hint dynamic_batches   Start over: ./course reset dynamic_batches
"""Serve every batch size from at most two graphs.

`score` runs on batches of 2 to 13 rows, and it is compiled with the options in
`COMPILE_OPTIONS` (the grader compiles it with the same options). With `dynamic=False` every new
batch size is a new graph, and after the recompile limit the remaining calls run eagerly. Choose
the `dynamic` setting that lets one graph serve all sizes after at most one recompile.
"""

import torch

COMPILE_OPTIONS = {"dynamic": False}  # TODO: this setting compiles a new graph for every batch size


def score(queries, keys):
    attention = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
    return attention @ keys


if __name__ == "__main__":
    import torch._logging
    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(score, backend="eager", **COMPILE_OPTIONS)
    keys = torch.randn(6, 16)
    for batch in range(2, 14):
        compiled(torch.randn(batch, 16), keys)

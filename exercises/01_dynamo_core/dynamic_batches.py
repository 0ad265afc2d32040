# Exercise dynamic_batches: One graph for every batch size
# Edit this file, then check it with:  ./course check dynamic_batches
# Stuck? ./course hint dynamic_batches   Start over: ./course reset dynamic_batches
"""Serve every batch size from at most two graphs.

`score(queries, keys)` attends each row of `queries` (shape `(batch, 16)`) over `keys`. A server
calls it on batches of 2 rows and more, in any order, and the grader compiles it with the options
in `COMPILE_OPTIONS`, as the demo below does. Run the file: it recompiles for every new batch size
until it reaches the recompile limit; from then on each new size runs eagerly. Find out why, and
fix it.

What the grader checks:
- Batches of any size from 2 rows up are served with at most one recompile in all.
- Every call runs compiled code.
- `score` returns the same attention output as now, for any batch size.
"""

# TODO: find out why every new batch size compiles a new graph, and fix it.

import torch

COMPILE_OPTIONS = {"dynamic": False}


def score(queries, keys):
    rows = []
    for query in queries:
        attention = torch.softmax(keys @ query / keys.shape[-1] ** 0.5, dim=-1)
        rows.append(attention @ keys)
    return torch.stack(rows)


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(score, backend="eager", **COMPILE_OPTIONS)
    keys = torch.randn(6, 16)
    for batch in range(2, 14):
        compiled(torch.randn(batch, 16), keys)

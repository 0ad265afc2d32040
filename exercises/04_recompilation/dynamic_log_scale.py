# Exercise dynamic_log_scale: Serve every sequence length from two graphs
# Edit this file, then check it with:  ./course check dynamic_log_scale
# Stuck? ./course hint dynamic_log_scale   Start over: ./course reset dynamic_log_scale
"""Serve every sequence length of an attention pooling from at most two graphs.

`pool(tokens, query)` attention-pools a variable number of token vectors into one vector, with
scores scaled by the log of the number of tokens. It is compiled with the default
`dynamic=None`, so after the first length change Dynamo should compile one graph for all
lengths. Instead every new length compiles again, and once the recompile limit is reached every
new length runs eagerly.

What the grader checks:
- Sequences of any length from 2 tokens up are served with at most one recompile in all.
- Every call runs compiled code.
- `pool` returns the same pooled vector as now, scores scaled by the log of the number of tokens, for any length.
"""

import math

import torch


def pool(tokens, query):
    """Attention pooling of (n, d) tokens with a query of size d, scores scaled by log(n)."""
    n = tokens.shape[0]
    scale = math.log(n)  # TODO: the recompile log blames the length. Is it still a symbol after this line?
    scores = tokens @ query * scale / math.sqrt(tokens.shape[1])
    return torch.softmax(scores, dim=0) @ tokens


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(pool, backend="eager")
    query = torch.randn(16)
    for n in [5, 9, 3, 12, 7, 2, 10, 4, 13, 6, 11, 8]:
        compiled(torch.randn(n, 16), query)

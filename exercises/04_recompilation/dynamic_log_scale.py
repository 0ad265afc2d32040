# Exercise dynamic_log_scale: Dynamic shapes are on, yet every length recompiles
# Edit this file, then check it with:  ./course check dynamic_log_scale
# Stuck? ./course hint dynamic_log_scale   Start over: ./course reset dynamic_log_scale
"""Serve every sequence length from at most two graphs.

`pool(tokens, query)` attention-pools a variable number of token vectors into one vector, with
scores scaled by the log of the number of tokens. It is compiled with the default
`dynamic=None`, so after the first length change Dynamo should compile one graph for all
lengths. Instead every new length compiles again, and after the recompile limit the remaining
calls run eagerly. Find the line that pins the length to a number, and change it so that one
graph serves every length after at most one recompile.
"""

import math

import torch


def pool(tokens, query):
    """Attention pooling of (n, d) tokens with a query of size d, scores scaled by log(n)."""
    n = tokens.shape[0]
    scale = math.log(n)  # TODO: Python's math.log needs a plain number, so the length stops being symbolic
    scores = tokens @ query * scale / math.sqrt(tokens.shape[1])
    return torch.softmax(scores, dim=0) @ tokens


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(pool, backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    query = torch.randn(16)
    for n in [5, 9, 3, 12, 7, 2, 10, 4, 13, 6, 11, 8]:
        compiled(torch.randn(n, 16), query)

# /// exercise
# format_version = 1
# title = "Dynamic shapes are on, yet every length recompiles"
# syllabus = ["4.1"]
# entry = "pool"
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles: every new length fails a size guard, although `dynamic` is left at its default, None.",
#   "Automatic dynamic shapes did turn the length into a symbol. Then one line turned it back into a plain number: Python's `math.log` cannot work on a symbol, so Dynamo specialises the length to the value it sees. `torch._dynamo.mark_dynamic` on the input turns that silent specialisation into an error that names the line.",
#   "Compute the scale from the length with a torch operation, which the graph can take a symbolic size into (lesson section 4.1).",
#   "scale = torch.log(torch.tensor(n, dtype=tokens.dtype))",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
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
    # BEGIN SOLUTION
    scale = torch.log(torch.tensor(n, dtype=tokens.dtype))
    # END SOLUTION
    # BEGIN STARTER
    # scale = math.log(n)  # TODO: Python's math.log needs a plain number, so the length stops being symbolic
    # END STARTER
    scores = tokens @ query * scale / math.sqrt(tokens.shape[1])
    return torch.softmax(scores, dim=0) @ tokens


# BEGIN GRADER
def calls(gen):
    query = torch.randn(16, generator=gen)
    lengths = [5, 9, 3, 12, 7, 2, 10, 4, 13, 6, 11, 8]
    return [(torch.randn(n, 16, generator=gen), query) for n in lengths]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(pool, backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    query = torch.randn(16)
    for n in [5, 9, 3, 12, 7, 2, 10, 4, 13, 6, 11, 8]:
        compiled(torch.randn(n, 16), query)

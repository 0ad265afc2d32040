# /// exercise
# format_version = 1
# title = "Serve every sequence length from two graphs"
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
#
# [[requirements]]
# id = "few_graphs"
# text = "Sequences of any length from 2 tokens up are served with at most one recompile in all."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_pooling"
# text = "`pool` returns the same pooled vector as now, scores scaled by the log of the number of tokens, for any length."
# checks = ["correct"]
#
# [[fair]]
# name = "new_tensor"
# why = "the length made a tensor with tokens.new_tensor, then its log"
#
# [[fair]]
# name = "float_tensor"
# why = "the length as a (symbolic) Python float made a tensor, then its log"
#
# [[fair]]
# name = "log_of_count"
# why = "the number of tokens counted by a tensor reduction (a sum of ones), so the length never leaves the graph"
#
# [[wrong]]
# name = "float_first"
# breaks = "few_graphs"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 1 allowed"
#
# [[wrong]]
# name = "silenced"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "visible_table"
# breaks = "same_pooling"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "log2_base"
# breaks = "same_pooling"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Serve every sequence length of an attention pooling from at most two graphs.

`pool(tokens, query)` attention-pools a variable number of token vectors into one vector, with
scores scaled by the log of the number of tokens. It is compiled with the default
`dynamic=None`, so after the first length change Dynamo should compile one graph for all
lengths. Instead every new length compiles again, and once the recompile limit is reached every
new length runs eagerly.
"""

import math

import torch

# BEGIN WRONG visible_table
# LOG_OF_LENGTH = torch.log(torch.arange(1, 14, dtype=torch.float32))  # the lengths the demo uses
# END WRONG


# BEGIN WRONG silenced
# @torch.compiler.disable
# def _pool(tokens, query):
#     n = tokens.shape[0]
#     scale = math.log(n)
#     scores = tokens @ query * scale / math.sqrt(tokens.shape[1])
#     return torch.softmax(scores, dim=0) @ tokens
# END WRONG


def pool(tokens, query):
    """Attention pooling of (n, d) tokens with a query of size d, scores scaled by log(n)."""
    n = tokens.shape[0]
    # BEGIN SOLUTION
    scale = torch.log(torch.tensor(n, dtype=tokens.dtype))
    # END SOLUTION
    # BEGIN STARTER
    # scale = math.log(n)  # TODO: the recompile log blames the length. Is it still a symbol after this line?
    # END STARTER
    # BEGIN FAIR new_tensor
    # scale = tokens.new_tensor(n).log()
    # END FAIR
    # BEGIN FAIR float_tensor
    # scale = torch.tensor(float(n)).log()
    # END FAIR
    # BEGIN FAIR log_of_count
    # scale = tokens.new_ones(n).sum().log()
    # END FAIR
    # BEGIN WRONG float_first
    # scale = math.log(float(n))
    # END WRONG
    # BEGIN WRONG silenced
    # return _pool(tokens, query)
    # END WRONG
    # BEGIN WRONG visible_table
    # scale = LOG_OF_LENGTH[:n][-1]
    # END WRONG
    # BEGIN WRONG log2_base
    # scale = math.log2(n)  # the lesson's math.log2 keeps the length symbolic, but it is another base
    # END WRONG
    scores = tokens @ query * scale / math.sqrt(tokens.shape[1])
    return torch.softmax(scores, dim=0) @ tokens


# BEGIN GRADER
def calls(gen):
    """Every length from 2 to 13 (the ones the demo shows) and two longer ones, up to 64, in an order
    drawn per seed: more calls than the recompile limit. The feature width is drawn per seed too.
    Lengths 0 and 1 are left out: Dynamo gives each its own graph whatever `dynamic` says (lesson
    4.1), and the task promises 2 tokens or more."""
    width = (8, 12, 16, 24)[int(torch.randint(4, (1,), generator=gen))]
    query = torch.randn(width, generator=gen)
    longer = (torch.randperm(51, generator=gen)[:2] + 14).tolist()
    lengths = list(range(2, 14)) + longer
    order = torch.randperm(len(lengths), generator=gen).tolist()
    return [(torch.randn(lengths[i], width, generator=gen), query) for i in order]
# END GRADER


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

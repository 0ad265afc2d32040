# /// exercise
# format_version = 1
# title = "Serve every length and mode with cheap recompiles"
# syllabus = ["4.5", "4.1"]
# entry = "encode"
# starter_fails = ["ops", "compiled_calls"]
# hints = [
#   "Run the file: it prints how many graphs and ops the calls cost. Then run it with TORCH_LOGS=recompiles and read the failing guards: there are two kinds.",
#   "One guard is on the string `reduce`: a string is always specialised, so each mode is a graph of its own, and each of those graphs traces the whole encoder again. The other is a size guard on the length, although dynamic shapes are on: one line turns the length into a plain number (lesson 4.1).",
#   "Split the function with a deliberate graph break after the encoder, so that a new mode recompiles only the reduction (lesson section 4.5); and compute the scale with a torch operation, so that the length stays symbolic (lesson section 4.1).",
#   "Replace `math.log(x.shape[0])` with `torch.log(torch.tensor(x.shape[0], dtype=x.dtype))`, and put `torch._dynamo.graph_break()` on the line before the first `if reduce == ...`.",
# ]
#
# [[checks]]
# kind = "ops"
# max = 72
# min_largest = 18
# points = 3
#
# [[checks]]
# kind = "graphs"
# min = 6
# points = 1
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "cheap_recompiles"
# text = "Over all the calls, at most 72 operations are traced (every graph and recompile counted), and the encoder stays compiled: one graph holds at least 18."
# checks = ["ops"]
#
# [[requirements]]
# id = "reductions_compiled"
# text = "Each mode's reduction still runs compiled, in a small graph of its own: at least 6 graphs over the calls."
# checks = ["graphs"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_scores"
# text = "`encode` returns the same scores as now, for any length from 2 tokens up and any of the four modes."
# checks = ["correct"]
#
# [[fair]]
# name = "reduction_table"
# why = "the reductions in a dict of functions, looked up after the break"
#
# [[fair]]
# name = "scale_after_break"
# why = "the break right after the layers, the length scale computed in the small graphs after it"
#
# [[fair]]
# name = "disabled_boundary"
# why = "a torch.compiler.disable'd no-op as the deliberate break (lesson 2.5)"
#
# [[wrong]]
# name = "break_only"
# breaks = "cheap_recompiles"
# fails = ["ops"]
# message = "ops traced over \\d+ graph\\(s\\).*at most 72 allowed"
#
# [[wrong]]
# name = "symbolic_only"
# breaks = "cheap_recompiles"
# fails = ["ops"]
# message = "ops traced over \\d+ graph\\(s\\).*at most 72 allowed"
#
# [[wrong]]
# name = "eager_encoder"
# breaks = "cheap_recompiles"
# fails = ["ops"]
# message = "the largest graph should hold at least 18 ops"
#
# [[wrong]]
# name = "eager_reductions"
# breaks = "reductions_compiled"
# fails = ["graphs"]
# message = "graph\\(s\\) compiled over \\d+ call\\(s\\); expected at least 6"
#
# [[wrong]]
# name = "float_scale"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "width_scale"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "log_table"
# breaks = "same_scores"
# fails = ["correct"]
# message = "did not return|the run stopped at the error|differs from the reference"
# ///
"""Serve sequences of every length, in four modes, with recompiles that cost little.

`encode(tokens, reduce)` scores each token of a sequence of `n` tokens: a six-layer encoder, a
scale that grows with the log of `n`, then the reduction of each row that the string `reduce`
names ("mean", "max", "norm" or "logsumexp"). A server calls it on sequences of 2 tokens and
more, in the four modes, in any order. Compiled, it recompiles far too often, every recompile
traces the whole encoder again, and once the recompile limit is reached the calls that match no
graph run eagerly. A mode needs a graph of its own (a string is always specialised); the rest
does not.
"""

# BEGIN STARTER
# # TODO: find out why `encode` recompiles so often, and why each recompile costs so much; fix both.
# END STARTER

import math

import torch

WEIGHTS = [torch.randn(16, 16) / 4 for _ in range(6)]

# BEGIN FAIR reduction_table
# REDUCTIONS = {"mean": lambda x: x.mean(dim=-1), "max": lambda x: x.amax(dim=-1),
#               "norm": lambda x: x.norm(dim=-1), "logsumexp": lambda x: x.logsumexp(dim=-1)}
# END FAIR
# BEGIN FAIR disabled_boundary
# @torch.compiler.disable
# def _boundary():
#     """Does nothing: Dynamo ends the graph at the call, and starts a new one after it."""
# END FAIR
# BEGIN WRONG eager_encoder
# @torch.compiler.disable
# def _encoder(x):
#     for w in WEIGHTS:
#         x = torch.tanh(x @ w) + x
#     return x
# END WRONG
# BEGIN WRONG log_table
# LOG_OF = torch.log(torch.arange(1, 49, dtype=torch.float32))  # log(n) for every length the demo serves, and more
# END WRONG
# BEGIN WRONG eager_reductions
# @torch.compiler.disable
# def _reduce(x, reduce):
#     if reduce == "mean":
#         return x.mean(dim=-1)
#     if reduce == "max":
#         return x.amax(dim=-1)
#     if reduce == "norm":
#         return x.norm(dim=-1)
#     return x.logsumexp(dim=-1)
# END WRONG


def encode(tokens, reduce):
    """One score per token of (n, 16) `tokens`, reduced over the features as `reduce` says."""
    # BEGIN SOLUTION
    x = tokens
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    x = x * torch.log(torch.tensor(x.shape[0], dtype=x.dtype))  # longer sequences get sharper scores
    torch._dynamo.graph_break()  # the part above never reads `reduce`: it compiles once for every mode
    # END SOLUTION
    # BEGIN STARTER
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * math.log(x.shape[0])  # longer sequences get sharper scores
    # END STARTER
    # BEGIN FAIR reduction_table
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * x.new_tensor(x.shape[0]).log()
    # torch._dynamo.graph_break()
    # return REDUCTIONS[reduce](x)
    # END FAIR
    # BEGIN FAIR scale_after_break
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # torch._dynamo.graph_break()
    # x = x * torch.log(torch.tensor(float(x.shape[0])))
    # END FAIR
    # BEGIN FAIR disabled_boundary
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * torch.log(torch.tensor(x.shape[0], dtype=x.dtype))
    # _boundary()
    # END FAIR
    # BEGIN WRONG break_only
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * math.log(x.shape[0])
    # torch._dynamo.graph_break()
    # END WRONG
    # BEGIN WRONG symbolic_only
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * torch.log(torch.tensor(x.shape[0], dtype=x.dtype))
    # END WRONG
    # BEGIN WRONG eager_encoder
    # x = _encoder(tokens)
    # x = x * torch.log(torch.tensor(x.shape[0], dtype=x.dtype))
    # END WRONG
    # BEGIN WRONG eager_reductions
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * torch.log(torch.tensor(x.shape[0], dtype=x.dtype))
    # return _reduce(x, reduce)
    # END WRONG
    # BEGIN WRONG float_scale
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * math.log(float(x.shape[0]))
    # torch._dynamo.graph_break()
    # END WRONG
    # BEGIN WRONG width_scale
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * math.log(x.shape[1])  # the width never changes, so nothing is specialised
    # torch._dynamo.graph_break()
    # END WRONG
    # BEGIN WRONG log_table
    # x = tokens
    # for w in WEIGHTS:
    #     x = torch.tanh(x @ w) + x
    # x = x * LOG_OF[x.shape[0] - 1]  # a tensor lookup: the length stays symbolic
    # torch._dynamo.graph_break()
    # END WRONG
    if reduce == "mean":
        return x.mean(dim=-1)
    if reduce == "max":
        return x.amax(dim=-1)
    if reduce == "norm":
        return x.norm(dim=-1)
    return x.logsumexp(dim=-1)


# BEGIN GRADER
MODES = ["mean", "max", "norm", "logsumexp"]


def calls(gen):
    """Sixteen calls, more than the recompile limit: each mode four times and sixteen distinct
    lengths, in orders drawn per seed: the shortest length (2), thirteen up to 48 (past the ones
    the demo shows), and, on every seed, two longer ones between 49 and 160 (a table of the first
    48 lengths' logs is no fix)."""
    short = (torch.randperm(46, generator=gen)[:13] + 3).tolist()
    longer = (torch.randperm(112, generator=gen)[:2] + 49).tolist()
    lengths = [2] + short + longer
    lengths = [lengths[i] for i in torch.randperm(16, generator=gen).tolist()]
    modes = [MODES[i % 4] for i in torch.randperm(16, generator=gen).tolist()]
    return [(torch.randn(n, 16, generator=gen), mode) for n, mode in zip(lengths, modes)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    schedule = [(torch.randn(n, 16), mode) for n, mode in zip(range(2, 14), ["mean", "max", "norm", "logsumexp"] * 3)]
    t = tally_calls(encode, schedule)
    print(t)
    print(f"ops traced per graph: {t.ops_per_graph}, {sum(t.ops_per_graph)} in all")
    print("Now run me with TORCH_LOGS=recompiles to see why.")

# /// exercise
# format_version = 1
# title = "Compile a feature scorer as one graph"
# syllabus = ["1.2.1", "1.2"]
# entry = "score"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file and read the whole message, not only its first line: the reason, the Explanation and Hint lines, the gbNNNN link, and the user stack under `from user code:`.",
#   "The user stack lists the calls from the outside in: `score`, then the helper it calls, then the helper that one calls. The innermost frame, the last one, is the line Dynamo could not trace; the lines above it are only the way there.",
#   "The message's Hint is about making that call traceable (an integer tensor), not about your numbers: the span of the activations is a fraction, and truncating it changes every score. Keep the span a tensor instead of turning it into Python numbers (lesson section 1.2.1).",
#   "In `_spread`: `return stats[1] - stats[0]`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# max = 2  # the schedule's second shape compiles a second graph (automatic dynamic shapes)
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-4
# atol = 1e-6
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`score` compiles with `fullgraph=True` as one graph: no graph break anywhere in the calls it makes (a second batch shape may compile one more graph, no more)."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "same_scores"
# text = "`score` returns the same scores as the code you were given, run eagerly, on every input: any number of rows (one included) and any width of `weight`."
# checks = ["correct"]
#
# [[fair]]
# name = "aminmax"
# why = "rescale computes the span from torch.aminmax itself and no longer calls the helper"
#
# [[fair]]
# name = "captured_item"
# why = "two .item() reads, which fullgraph=True captures into the graph as symbolic floats"
#
# [[wrong]]
# name = "integer_tolist"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "disabled_helper"
# breaks = "one_graph"
# fails = ["compiles", "graphs"]
# message = "[Gg]raph break|graph\\(s\\) compiled"
#
# [[wrong]]
# name = "top_level_guess"
# breaks = "one_graph"
# fails = ["compiles", "graphs"]
# message = "tolist|graph\\(s\\) compiled"
#
# [[wrong]]
# name = "per_row_range"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "fixed_width"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make `score` compile as one graph with `fullgraph=True`.

`score` turns a batch of feature rows into one score per row: a projection, the activations
rescaled onto 0..1 over the whole batch, then a sum per row divided by the square root of the
width. It runs eagerly; the grader compiles it with `fullgraph=True`, and there it raises. Run
the file to see the error, then fix the code so that it compiles without changing a single score.
Any function of the file may change.
"""

import math

import torch


def _spread(stats):
    """The width of the range [low, high] that `stats` holds."""
    # BEGIN SOLUTION
    return stats[1] - stats[0]
    # END SOLUTION
    # BEGIN STARTER
    # low, high = stats.tolist()
    # return high - low
    # END STARTER
    # BEGIN FAIR captured_item
    # low, high = stats[0].item(), stats[1].item()
    # return high - low
    # END FAIR
    # BEGIN WRONG integer_tolist
    # low, high = stats.int().tolist()
    # return high - low
    # END WRONG
    # BEGIN WRONG disabled_helper
    # return _spread_eagerly(stats)
    # END WRONG
    # BEGIN WRONG top_level_guess
    # low, high = stats.tolist()
    # return high - low
    # END WRONG


# BEGIN WRONG disabled_helper
# @torch._dynamo.disable
# def _spread_eagerly(stats):
#     low, high = stats.tolist()
#     return high - low
# END WRONG


def rescale(hidden):
    """Map the activations linearly onto 0..1 (the smallest to 0, the largest to 1)."""
    # BEGIN SOLUTION
    stats = torch.stack([hidden.amin(), hidden.amax()])
    return (hidden - stats[0]) / _spread(stats)
    # END SOLUTION
    # BEGIN STARTER
    # stats = torch.stack([hidden.amin(), hidden.amax()])
    # return (hidden - stats[0]) / _spread(stats)
    # END STARTER
    # BEGIN FAIR aminmax
    # low, high = torch.aminmax(hidden)
    # return (hidden - low) / (high - low)
    # END FAIR
    # BEGIN WRONG per_row_range
    # low = hidden.amin(dim=-1, keepdim=True)
    # high = hidden.amax(dim=-1, keepdim=True)
    # return (hidden - low) / (high - low)
    # END WRONG


# BEGIN STARTER
# # TODO: make score compile with fullgraph=True (run the file and read the whole error)
# END STARTER
def score(features, weight):
    hidden = torch.tanh(features @ weight)
    # BEGIN SOLUTION
    width = hidden.shape[-1]
    return rescale(hidden).sum(dim=-1) / math.sqrt(width)
    # END SOLUTION
    # BEGIN STARTER
    # width = hidden.shape[-1]
    # return rescale(hidden).sum(dim=-1) / math.sqrt(width)
    # END STARTER
    # BEGIN WRONG top_level_guess
    # width = torch.tensor(float(hidden.shape[-1]))
    # return rescale(hidden).sum(dim=-1) / width.sqrt()
    # END WRONG
    # BEGIN WRONG fixed_width
    # # the projection is always 5 wide: precompute the constant
    # return rescale(hidden).sum(dim=-1) / math.sqrt(5)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """A batch of one row, then two batches of several rows through a wider weight (the row
    counts and the width drawn per seed). The range is over the whole batch, so a range per row
    differs from it on every batch of two rows or more, and a width written in as a constant
    differs on the wider weight; features of both signs, so truncating the range to integers
    changes every score. The second shape compiles a second graph (automatic dynamic shapes)."""
    rows = int(torch.randint(2, 9, (1,), generator=gen))
    width = int(torch.randint(6, 10, (1,), generator=gen))
    first = (torch.randn(1, 6, generator=gen) * 2, torch.randn(6, 5, generator=gen))
    weight = torch.randn(6, width, generator=gen)
    return [first] + [(torch.randn(n, 6, generator=gen) * 2, weight) for n in (rows, rows + 3)]
# END GRADER


if __name__ == "__main__":
    features, weight = torch.randn(4, 6), torch.randn(6, 5)
    print("eager scores:", score(features, weight))
    # backend="eager" runs the captured graph as it is: the same trace and the same error as the
    # default backend, without generating code.
    compiled = torch.compile(score, fullgraph=True, backend="eager")
    print("compiled scores:", compiled(features, weight))

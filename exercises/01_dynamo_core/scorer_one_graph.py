# Exercise scorer_one_graph: Compile a feature scorer as one graph
# Edit this file, then check it with:  ./course check scorer_one_graph
# Stuck? ./course hint scorer_one_graph   Start over: ./course reset scorer_one_graph
"""Make `score` compile as one graph with `fullgraph=True`.

`score` turns a batch of feature rows into one score per row: a projection, the activations
rescaled onto 0..1 over the whole batch, then a sum per row divided by the square root of the
width. It runs eagerly; the grader compiles it with `fullgraph=True`, and there it raises. Run
the file to see the error, then fix the code so that it compiles without changing a single score.
Any function of the file may change.

What the grader checks:
- `score` compiles with `fullgraph=True` as one graph: no graph break anywhere in the calls it makes (a second batch shape may compile one more graph, no more).
- `score` returns the same scores as the code you were given, run eagerly, on every input: any number of rows (one included) and any width of `weight`.
"""

import math

import torch


def _spread(stats):
    """The width of the range [low, high] that `stats` holds."""
    low, high = stats.tolist()
    return high - low


def rescale(hidden):
    """Map the activations linearly onto 0..1 (the smallest to 0, the largest to 1)."""
    stats = torch.stack([hidden.amin(), hidden.amax()])
    return (hidden - stats[0]) / _spread(stats)


# TODO: make score compile with fullgraph=True (run the file and read the whole error)
def score(features, weight):
    hidden = torch.tanh(features @ weight)
    width = hidden.shape[-1]
    return rescale(hidden).sum(dim=-1) / math.sqrt(width)


if __name__ == "__main__":
    features, weight = torch.randn(4, 6), torch.randn(6, 5)
    print("eager scores:", score(features, weight))
    # backend="eager" runs the captured graph as it is: the same trace and the same error as the
    # default backend, without generating code.
    compiled = torch.compile(score, fullgraph=True, backend="eager")
    print("compiled scores:", compiled(features, weight))

# Exercise flatten_nested: Two graphs for a model that prints two calls deep
# Edit this file, then check it with:  ./course check flatten_nested
# Stuck? ./course hint flatten_nested   Start over: ./course reset flatten_nested
"""Get a model that prints two calls deep from six graphs down to two.

`model` is compiled with the default `fullgraph=False`. Two calls down, `layer` prints a
statistic of the hidden activations, and that one print costs six graphs per call on torch 2.13.
You may restructure the three functions, or change the one configuration flag this exercise
allows: `torch._dynamo.config.nested_graph_breaks`.

What the grader checks:
- The compiled `model` needs at most two graphs in all, over calls of one batch shape.
- No frame is skipped, and the layer's matmul and tanh run inside a graph.
- The only graph break left, if any, is the print.
- Every call prints what it prints now, once: `hidden mean:` and the mean of the layer's activations, as a tensor.
- `model` returns what it returns now.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance.
"""

import torch


def layer(x, w):
    # TODO: one print, six graphs per call; get the compiled model down to two.
    h = torch.tanh(x @ w)
    print("hidden mean:", h.mean())
    return h * 2


def block(x, w):
    return layer(x + 1, w) - 1


def model(x, w):
    return block(x * 3, w).relu()


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8) / 3
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    print(tally_calls(model, [(x, w)], backend="eager"))

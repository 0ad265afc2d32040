# Exercise flatten_nested: A print two calls deep: flatten the nested graph break
# Edit this file, then check it with:  ./course check flatten_nested
# Stuck? ./course hint flatten_nested   Start over: ./course reset flatten_nested
"""Get from six graphs down to two without losing the message.

`model` is compiled with the default `fullgraph=False`. Two calls down, `layer` prints a
statistic of the hidden activations, and that one print costs six graphs per call on torch 2.13,
because a break inside a nested call is paid for once per level. Keep the message, exactly
as it is printed now and once per call, and get the compiled `model` down to at most two graphs
with the same results. You may restructure the code, or use the one configuration flag this
exercise allows: `torch._dynamo.config.nested_graph_breaks`.
"""

import torch


def layer(x, w):
    h = torch.tanh(x @ w)
    print("hidden mean:", h.mean())  # TODO: a break two calls down: every level above it pays for it
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

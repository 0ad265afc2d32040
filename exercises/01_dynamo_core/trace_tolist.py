# Exercise trace_tolist: Keep the arithmetic in tensors
# Edit this file, then check it with:  ./course check trace_tolist
# Stuck? ./course hint trace_tolist   Start over: ./course reset trace_tolist
"""Make `weighted_row_means` traceable as one graph.

`weighted_row_means(values, weights)` returns, for each row of `values` (shape `(rows, n)`), the
mean of that row weighted by `weights` (shape `(n,)`). It works in plain Python, but the grader
compiles it with `fullgraph=True`, and Dynamo cannot trace it: the values leave the tensor world
through `.tolist()`. Rewrite it with tensor operations so that Dynamo records one graph. Keep the
result a float tensor of shape `(rows,)`.
"""

import torch


def weighted_row_means(values, weights):
    means = []
    total_weight = sum(weights.tolist())  # TODO: Python floats cannot go into a graph
    for row in values.tolist():
        means.append(sum(v * w for v, w in zip(row, weights.tolist())) / total_weight)
    return torch.tensor(means)


if __name__ == "__main__":
    values, weights = torch.randn(3, 5), torch.rand(5)
    print("eager:   ", weighted_row_means(values, weights))
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(weighted_row_means, fullgraph=True, backend="eager")
    print("compiled:", compiled(values, weights))

# Exercise trace_tolist: Weighted row means as one graph
# Edit this file, then check it with:  ./course check trace_tolist
# Stuck? ./course hint trace_tolist   Start over: ./course reset trace_tolist
"""Make `weighted_row_means` compile as one graph.

`weighted_row_means(values, weights)` returns, for each row of `values` (shape `(rows, n)`), the
mean of that row weighted by `weights` (shape `(n,)`). It works in plain Python, but the grader
compiles it with `fullgraph=True`, where every graph break is an error, and Dynamo cannot trace it
as it is written.

What the grader checks:
- `weighted_row_means` compiles with `fullgraph=True`: no graph break.
- It returns each row's mean weighted by `weights`, a float tensor of shape `(rows,)`, for any number of rows and columns.
"""

import torch


def weighted_row_means(values, weights):
    means = []
    total_weight = sum(weights.tolist())  # TODO: fullgraph=True stops here. What leaves the tensor world?
    for row in values.tolist():
        means.append(sum(v * w for v, w in zip(row, weights.tolist())) / total_weight)
    return torch.tensor(means)


if __name__ == "__main__":
    values, weights = torch.randn(3, 5), torch.rand(5)
    print("eager:   ", weighted_row_means(values, weights))
    # backend="eager" runs the captured graph as it is, without generating code: the trace and its
    # graph breaks are the ones the default backend (Inductor) would see, at a fraction of the time.
    compiled = torch.compile(weighted_row_means, fullgraph=True, backend="eager")
    print("compiled:", compiled(values, weights))

# /// exercise
# format_version = 1
# title = "Keep the arithmetic in tensors"
# syllabus = ["1.1"]
# entry = "weighted_row_means"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the line that calls .tolist().",
#   "Dynamo records torch operations into a graph. .tolist() turns a float tensor into Python floats, and the loop then does arithmetic Dynamo cannot put in a graph.",
#   "Every step of the loop has a tensor version: multiply by the weights (broadcasting over rows), sum over the last dimension, divide by the sum of the weights.",
#   "return (values * weights).sum(dim=-1) / weights.sum()",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
# ///
"""Make `weighted_row_means` traceable as one graph.

`weighted_row_means(values, weights)` returns, for each row of `values` (shape `(rows, n)`), the
mean of that row weighted by `weights` (shape `(n,)`). It works in plain Python, but the grader
compiles it with `fullgraph=True`, and Dynamo cannot trace it: the values leave the tensor world
through `.tolist()`. Rewrite it with tensor operations so that Dynamo records one graph. Keep the
result a float tensor of shape `(rows,)`.
"""

import torch


def weighted_row_means(values, weights):
    # BEGIN SOLUTION
    return (values * weights).sum(dim=-1) / weights.sum()
    # END SOLUTION
    # BEGIN STARTER
    # means = []
    # total_weight = sum(weights.tolist())  # TODO: Python floats cannot go into a graph
    # for row in values.tolist():
    #     means.append(sum(v * w for v, w in zip(row, weights.tolist())) / total_weight)
    # return torch.tensor(means)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    shapes = [(3, 5), (3, 5), (3, 5)]
    return [(torch.randn(*shape, generator=gen), torch.rand(shape[1], generator=gen) + 0.1) for shape in shapes]
# END GRADER


if __name__ == "__main__":
    values, weights = torch.randn(3, 5), torch.rand(5)
    print("eager:   ", weighted_row_means(values, weights))
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(weighted_row_means, fullgraph=True, backend="eager")
    print("compiled:", compiled(values, weights))

# /// exercise
# format_version = 1
# title = "Weighted row means as one graph"
# syllabus = ["1.1"]
# entry = "weighted_row_means"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the line that the error names, the one that calls .tolist().",
#   "Dynamo records torch operations into a graph. .tolist() turns a tensor into Python floats, and the loop then does arithmetic on them that Dynamo cannot put in a graph.",
#   "Every step of the loop has a tensor version: multiply by the weights (broadcasting over rows), sum over the last dimension, divide by the sum of the weights.",
#   "return (values * weights).sum(dim=-1) / weights.sum()",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`weighted_row_means` compiles with `fullgraph=True`: no graph break."
# checks = ["compiles"]
#
# [[requirements]]
# id = "weighted_mean"
# text = "It returns each row's mean weighted by `weights`, a float tensor of shape `(rows,)`, for any number of rows and columns."
# checks = ["correct"]
#
# [[fair]]
# name = "einsum"
# why = "one einsum contraction instead of a broadcast product and a sum"
#
# [[fair]]
# name = "matvec"
# why = "a matrix-vector product with the weights normalised first"
#
# [[fair]]
# name = "normalised_weights"
# why = "normalise the weights, then broadcast and sum"
#
# [[wrong]]
# name = "half_tensor"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break"
#
# [[wrong]]
# name = "unweighted"
# breaks = "weighted_mean"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "squeeze_column"
# breaks = "weighted_mean"
# fails = ["correct"]
# message = "has shape \\(\\), expected \\(1,\\)"
#
# [[wrong]]
# name = "visible_width"
# breaks = "weighted_mean"
# fails = ["correct"]
# message = "differs from the reference|should be|did not return|has shape"
# ///
"""Make `weighted_row_means` compile as one graph.

`weighted_row_means(values, weights)` returns, for each row of `values` (shape `(rows, n)`), the
mean of that row weighted by `weights` (shape `(n,)`). It works in plain Python, but the grader
compiles it with `fullgraph=True`, where every graph break is an error, and Dynamo cannot trace it
as it is written.
"""

import torch


def weighted_row_means(values, weights):
    # BEGIN SOLUTION
    return (values * weights).sum(dim=-1) / weights.sum()
    # END SOLUTION
    # BEGIN STARTER
    # means = []
    # total_weight = sum(weights.tolist())  # TODO: fullgraph=True stops here. What leaves the tensor world?
    # for row in values.tolist():
    #     means.append(sum(v * w for v, w in zip(row, weights.tolist())) / total_weight)
    # return torch.tensor(means)
    # END STARTER
    # BEGIN FAIR einsum
    # return torch.einsum("rn,n->r", values, weights) / weights.sum()
    # END FAIR
    # BEGIN FAIR matvec
    # return values @ (weights / weights.sum())
    # END FAIR
    # BEGIN FAIR normalised_weights
    # share = weights / weights.sum()
    # return (values * share).sum(dim=-1)
    # END FAIR
    # BEGIN WRONG half_tensor
    # total_weight = sum(weights.tolist())
    # return (values * weights).sum(dim=-1) / total_weight
    # END WRONG
    # BEGIN WRONG unweighted
    # return values.mean(dim=-1)
    # END WRONG
    # BEGIN WRONG squeeze_column
    # return (values @ weights[:, None]).squeeze() / weights.sum()
    # END WRONG
    # BEGIN WRONG visible_width
    # total = weights[0] + weights[1] + weights[2] + weights[3] + weights[4]
    # return (values[:, :5] * weights[:5]).sum(dim=-1) / total
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """The visible shape (3, 5), then the edges the task admits: one row, more rows and columns
    than the file ever shows (drawn per seed), and weights of exactly zero."""
    def draw(rows, n):
        return torch.randn(rows, n, generator=gen), torch.rand(n, generator=gen) + 0.1

    rows = int(torch.randint(4, 17, (1,), generator=gen))
    width = int(torch.randint(6, 20, (1,), generator=gen))
    zero_weights = draw(rows, width)
    zero_weights[1][::2] = 0.0
    return [draw(3, 5), draw(3, 5), draw(1, 5), draw(rows, width), zero_weights]
# END GRADER


if __name__ == "__main__":
    values, weights = torch.randn(3, 5), torch.rand(5)
    print("eager:   ", weighted_row_means(values, weights))
    # backend="eager" runs the captured graph as it is, without generating code: the trace and its
    # graph breaks are the ones the default backend (Inductor) would see, at a fraction of the time.
    compiled = torch.compile(weighted_row_means, fullgraph=True, backend="eager")
    print("compiled:", compiled(values, weights))

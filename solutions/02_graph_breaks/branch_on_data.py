# /// exercise
# format_version = 1
# title = "Keep a data-dependent branch inside the graph"
# syllabus = ["2.2.2"]
# entry = "respond"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the `if` with \"Data-dependent branching\".",
#   "While tracing, x.mean() is a fake tensor with no value, so Python cannot decide the `if`. The grader calls respond with batches of both signs, so both branches matter.",
#   "Lesson section 2.2.2: torch.cond(pred, true_fn, false_fn, operands) records both branches in the graph and picks one when the graph runs. torch.where also works here, but it computes both sides every time.",
#   "Write the two branches as functions of (x,), then `return torch.cond(x.mean() > 0, excite, inhibit, (x,))`.",
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
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Make a branch on the data compile into one graph.

`respond` looks at the mean of a batch and, if it is positive, applies a saturating response;
otherwise a damped linear one. The `if` depends on a tensor's value, so with `fullgraph=True` it
does not compile. The grader calls `respond` with batches of both signs. Make it compile into one
graph that serves both, with the same results as the `if`.
"""

import torch


def excite(x):
    return torch.log1p(x.relu()) * 2


def inhibit(x):
    return 0.1 * x - 1


def respond(x):
    # BEGIN SOLUTION
    return torch.cond(x.mean() > 0, excite, inhibit, (x,))
    # END SOLUTION
    # BEGIN STARTER
    # if x.mean() > 0:  # TODO: a Python branch on a tensor's value; keep the choice in the graph
    #     return excite(x)
    # return inhibit(x)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    batches = [torch.randn(4, 8, generator=gen) for _ in range(4)]
    signs = [1, -1, -1, 1]  # both branches, in both orders
    return [(b - b.mean() + s * (0.5 + torch.rand(1, generator=gen)),) for b, s in zip(batches, signs)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(respond, fullgraph=True, backend="eager")
    print(compiled(torch.randn(4, 8) + 1))

# Exercise branch_on_data: Respond to the sign of a batch in one graph
# Edit this file, then check it with:  ./course check branch_on_data
# Stuck? ./course hint branch_on_data   Start over: ./course reset branch_on_data
"""Make a branch on the data compile into one graph.

`respond` looks at the mean of a batch and, if it is positive, applies a saturating response;
otherwise a damped linear one. The grader compiles it with `fullgraph=True`, where it does not
compile, and calls it with batches of both signs.

What the grader checks:
- `respond` compiles with `fullgraph=True` into one graph that serves batches of either sign (a batch of another size may compile one more graph, no more).
- It returns `excite(x)` when the mean of the whole batch (all rows together, one row or many) is above 0 and `inhibit(x)` otherwise (a mean of exactly 0 included), as the `if` does now.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


def excite(x):
    return torch.log1p(x.relu()) * 2


def inhibit(x):
    return 0.1 * x - 1


def respond(x):
    # TODO: make respond compile with fullgraph=True, for batches of either sign.
    if x.mean() > 0:
        return excite(x)
    return inhibit(x)


if __name__ == "__main__":
    compiled = torch.compile(respond, fullgraph=True, backend="eager")
    print(compiled(torch.randn(4, 8) + 1))

# /// exercise
# format_version = 1
# title = "Respond to the sign of a batch in one graph"
# syllabus = ["2.2.2"]
# entry = "respond"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the `if` with \"Data-dependent branching\".",
#   "While tracing, x.mean() is a fake tensor with no value, so Python cannot decide the `if`. Reading the value out with .item() does not help: under fullgraph=True the number is captured as a symbol with no value either, and the `if` still cannot be decided. The grader calls respond with batches of both signs, so both branches matter.",
#   "Lesson section 2.2.2: torch.cond(pred, true_fn, false_fn, operands) records both branches in the graph and picks one when the graph runs. torch.where also works here, but it computes both sides every time. Keep the comparison exactly as the `if` has it: a batch whose mean is exactly 0 must take the same branch.",
#   "Write the two branches as functions of (x,), then `return torch.cond(x.mean() > 0, excite, inhibit, (x,))`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# max = 2  # the schedule's last batch, a single row, has another size: one more graph
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
#
# [[requirements]]
# id = "one_graph"
# text = "`respond` compiles with `fullgraph=True` into one graph that serves batches of either sign (a batch of another size may compile one more graph, no more)."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "same_choice"
# text = "It returns `excite(x)` when the mean of the whole batch (all rows together, one row or many) is above 0 and `inhibit(x)` otherwise (a mean of exactly 0 included), as the `if` does now."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "where"
# why = "torch.where computes both responses and keeps one, elementwise on a broadcast condition"
#
# [[fair]]
# name = "blend"
# why = "arithmetic on the condition: a 0/1 weight mixes the two responses"
#
# [[fair]]
# name = "sum_sign"
# why = "torch.cond on the sign of the sum, which is positive exactly when the mean is"
#
# [[fair]]
# name = "lerp_weight"
# why = "torch.lerp from the damped response to the saturating one, with the 0/1 condition as the weight"
#
# [[wrong]]
# name = "item_branch"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "data-dependent"
#
# [[wrong]]
# name = "at_or_above"
# breaks = "same_choice"
# fails = ["correct"]
# message = "Call 3 of 7 .*differs from the reference"
#
# [[wrong]]
# name = "one_branch"
# breaks = "same_choice"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "is_compiling_guard"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "is_compiling"
#
# [[wrong]]
# name = "row_means"
# breaks = "same_choice"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "median_sign"
# breaks = "same_choice"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make a branch on the data compile into one graph.

`respond` looks at the mean of a batch and, if it is positive, applies a saturating response;
otherwise a damped linear one. The grader compiles it with `fullgraph=True`, where it does not
compile, and calls it with batches of both signs.
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
    # # TODO: make respond compile with fullgraph=True, for batches of either sign.
    # if x.mean() > 0:
    #     return excite(x)
    # return inhibit(x)
    # END STARTER
    # BEGIN FAIR where
    # return torch.where(x.mean() > 0, excite(x), inhibit(x))
    # END FAIR
    # BEGIN FAIR blend
    # positive = (x.mean() > 0).to(x.dtype)
    # return positive * excite(x) + (1 - positive) * inhibit(x)
    # END FAIR
    # BEGIN FAIR sum_sign
    # return torch.cond(x.sum() > 0, lambda v: excite(v), lambda v: inhibit(v), [x])
    # END FAIR
    # BEGIN FAIR lerp_weight
    # positive = (x.mean() > 0).to(x.dtype)
    # return torch.lerp(inhibit(x), excite(x), positive)
    # END FAIR
    # BEGIN WRONG item_branch
    # if x.mean().item() > 0:
    #     return excite(x)
    # return inhibit(x)
    # END WRONG
    # BEGIN WRONG at_or_above
    # return torch.cond(x.mean() >= 0, excite, inhibit, (x,))
    # END WRONG
    # BEGIN WRONG one_branch
    # return excite(x)
    # END WRONG
    # BEGIN WRONG is_compiling_guard
    # if torch.compiler.is_compiling():
    #     return torch.where(x.mean() > 0, excite(x), inhibit(x))
    # if x.mean() > 0:
    #     return excite(x)
    # return inhibit(x)
    # END WRONG
    # BEGIN WRONG row_means
    # return torch.where(x.mean(dim=-1, keepdim=True) > 0, excite(x), inhibit(x))
    # END WRONG
    # BEGIN WRONG median_sign
    # return torch.where(x.median() > 0, excite(x), inhibit(x))
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Batches of several rows (the count drawn per seed) of both signs in both orders, one whose
    mean is exactly 0 (quarter steps sum exactly in float32), where `>` and `>=` part ways, and
    skewed ones whose mean and median have opposite signs: one element of the mean's sign
    outweighs the rest, so every other row's mean has the other sign too (a mean per row, a
    median or an elementwise sign differ). The last batch is a single row, skewed the other way,
    and compiles a second graph (a new batch size)."""
    rows = int(torch.randint(2, 9, (1,), generator=gen))

    def signed(sign):
        b = torch.randn(rows, 8, generator=gen)
        return b - b.mean() + sign * (0.5 + torch.rand(1, generator=gen))

    def skewed(sign, n):
        b = -sign * (0.1 + torch.rand(n, 8, generator=gen))
        b[-1, -1] = 0.0
        b[-1, -1] = sign * (0.5 + float(torch.rand(1, generator=gen))) * b.numel() - b.sum()
        return b

    balanced = torch.randint(-8, 9, (rows, 8), generator=gen).float() / 4
    balanced[-1, -1] -= balanced.sum()
    return [(signed(1),), (signed(-1),), (balanced,), (signed(-1),), (signed(1),), (skewed(1, rows),),
            (skewed(-1, 1),)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(respond, fullgraph=True, backend="eager")
    print(compiled(torch.randn(4, 8) + 1))

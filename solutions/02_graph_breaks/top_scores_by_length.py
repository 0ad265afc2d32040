# /// exercise
# format_version = 1
# title = "Compile a top-k summary whose k is read from the data, and keep its input validation"
# syllabus = ["2.2.2.1", "2.2.2"]
# entry = "top_scores"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: with fullgraph=True the `.item()` itself is fine (it is captured into the graph as a symbolic integer), but the next line raises. Read the message: what could Dynamo not decide, and what does it suggest?",
#   "`k` comes from the data, so it is an unbacked symbol: Dynamo has no value to guess from and cannot guard on a tensor it computed, so a Python `if` on `k` cannot be traced. It does not know that a longest length is at least 1 and at most the row width; you do.",
#   "torch._check(condition) tells the compiler a fact about `k` and checks it when the graph runs: an invalid batch still raises. Put the checks before any code that branches on `k`, and keep their messages free of `k` itself (lesson section 2.2.2.1).",
#   "Before the `if` (or instead of it): `torch._check(k >= 1, lambda: \"every batch needs a sequence of at least one token\")` and `torch._check(k <= scores.shape[-1], lambda: \"a length is longer than the rows\")`.",
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
# points = 1
#
# [[checks]]
# kind = "refuses"
# inputs = "refused_calls"
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`top_scores` compiles with `fullgraph=True` as one graph, for every batch (a new longest length does not recompile)."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "same_scores"
# text = "On every valid batch it returns the same row scores as the code you were given."
# checks = ["correct"]
#
# [[requirements]]
# id = "still_refuses"
# text = "A batch whose longest length is below 1 or above the row width is still refused with an error when the compiled code runs."
# checks = ["refuses"]
#
# [[fair]]
# name = "check_then_branch"
# why = "the torch._check calls put before the original if, which the compiler can then decide"
#
# [[fair]]
# name = "check_is_size"
# why = "torch._check_is_size with an upper bound, plus a check that k is not zero"
#
# [[wrong]]
# name = "no_validation"
# breaks = "still_refuses"
# fails = ["refuses"]
# message = "returned a result instead of being refused"
#
# [[wrong]]
# name = "branch_then_check"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "data-dependent|guard"
#
# [[wrong]]
# name = "message_with_k"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "message closure|torch\\._check"
#
# [[wrong]]
# name = "off_by_one"
# breaks = "same_scores"
# fails = ["correct"]
# message = "did not return"
# ///
"""Make `top_scores` compile with `fullgraph=True`, and keep it refusing invalid batches.

`top_scores(scores, lengths)` summarises a batch: `scores` has one row of candidate scores per
sequence, `lengths` the number of valid tokens of each sequence. Each row's summary is the mean of
its `k` best scores, where `k` is the longest length in the batch. A batch whose longest length is
below 1 or above the row width is invalid, and the function refuses it with an error. The grader
compiles it with `fullgraph=True`, where it raises on every batch.
"""

import torch


def top_scores(scores, lengths):
    # BEGIN STARTER
    # # TODO: make this compile with fullgraph=True; invalid batches must still raise
    # END STARTER
    k = lengths.max().item()
    # BEGIN SOLUTION
    torch._check(k >= 1, lambda: "every batch needs a sequence of at least one token")
    torch._check(k <= scores.shape[-1], lambda: "a length is longer than the rows")
    # END SOLUTION
    # BEGIN STARTER
    # if k < 1 or k > scores.shape[-1]:
    #     raise ValueError(f"the longest length, {k}, is outside 1..{scores.shape[-1]}")
    # END STARTER
    # BEGIN FAIR check_then_branch
    # torch._check(k >= 1)
    # torch._check(k <= scores.shape[-1])
    # if k < 1 or k > scores.shape[-1]:
    #     raise ValueError(f"the longest length, {k}, is outside 1..{scores.shape[-1]}")
    # END FAIR
    # BEGIN FAIR check_is_size
    # torch._check_is_size(k, max=scores.shape[-1])
    # torch._check(k != 0)
    # END FAIR
    # BEGIN WRONG no_validation
    # pass
    # END WRONG
    # BEGIN WRONG branch_then_check
    # if k < 1 or k > scores.shape[-1]:
    #     raise ValueError(f"the longest length, {k}, is outside 1..{scores.shape[-1]}")
    # torch._check(k >= 1)
    # torch._check(k <= scores.shape[-1])
    # END WRONG
    # BEGIN WRONG message_with_k
    # torch._check(k >= 1, lambda: f"the longest length, {k}, is below 1")
    # torch._check(k <= scores.shape[-1], lambda: f"the longest length, {k}, is above the width")
    # END WRONG
    # BEGIN WRONG off_by_one
    # torch._check(k >= 1)
    # torch._check(k < scores.shape[-1])
    # END WRONG
    return scores.topk(k, dim=-1).values.mean(dim=-1)


# BEGIN GRADER
def calls(gen):
    """One row width per grading; four batches whose longest length is the full width (the edge
    an off-by-one check trips on), exactly 1, and two values drawn in between."""
    rows = int(torch.randint(2, 7, (1,), generator=gen))
    width = int(torch.randint(4, 11, (1,), generator=gen))
    schedule = []
    for longest in (width, 1, int(torch.randint(2, width, (1,), generator=gen)), int(torch.randint(1, width + 1, (1,), generator=gen))):
        lengths = torch.randint(0, longest + 1, (rows,), generator=gen)
        lengths[int(torch.randint(0, rows, (1,), generator=gen))] = longest
        schedule.append((torch.randn(rows, width, generator=gen), lengths))
    return schedule


def refused_calls(calls):
    """Batches the task says must be refused, built from the grader's schedule: every length 0,
    and one length a little above the row width (by 1 to 3, from the drawn scores)."""
    scores, lengths = calls[0]
    width = scores.shape[-1]
    over = 1 + int(scores.abs().sum() * 1000) % 3
    too_long = lengths.clone()
    too_long[0] = width + over
    return [(scores.clone(), torch.zeros_like(lengths)), (scores.clone(), too_long)]
# END GRADER


if __name__ == "__main__":
    scores, lengths = torch.randn(3, 6), torch.tensor([2, 5, 3])
    print("eager:", top_scores(scores, lengths))
    # backend="eager" runs the captured graph as it is: the same trace and errors as Inductor.
    print("compiled:", torch.compile(top_scores, fullgraph=True, backend="eager")(scores, lengths))

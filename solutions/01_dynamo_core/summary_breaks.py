# /// exercise
# format_version = 1
# title = "Find every graph break in a batch summary and remove them"
# syllabus = ["1.2.2", "1.2"]
# entry = "summarise"
# starter_fails = ["graphs", "graph_breaks"]
# hints = [
#   "Run the file: it prints what `torch._dynamo.explain(summarise)(batch)` reports, the graph count, the break count and one reason per break, each with the user line it happened at. Count them before you change anything.",
#   "Three different causes, three different fixes: a Python `if` on a tensor value, a call Dynamo was told not to trace, and an operator whose output size depends on the data.",
#   "Keep each decision in tensors: `torch.where` (or a clamp) instead of the `if`; count with a sum of the mask instead of the rows of `nonzero()`; and nothing in `smooth` needs to stay out of the graph any more (lesson section 1.2.2 on explain; 2.2.2 for data-dependent code).",
#   "Replace the `if` by `h = h * torch.where(peak > LIMIT, LIMIT / peak, 1.0)`, delete the `@torch._dynamo.disable` line above `smooth`, and compute `fraction = (h.abs() > THRESHOLD).float().mean()`.",
# ]
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "graph_breaks"
# max = 0
# points = 2
#
# [[checks]]
# kind = "correct"
# rtol = 1e-5
# atol = 1e-6
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`summarise` compiles into one graph: no graph break on any call."
# checks = ["graphs", "graph_breaks"]
#
# [[requirements]]
# id = "same_summary"
# text = "`summarise` returns the same row scores and active fraction as the code you were given, on every batch (peaks above and below the limit included)."
# checks = ["correct"]
#
# [[fair]]
# name = "clamped"
# why = "the peak limit as a division by the clamped peak, and the fraction as a sum over the element count"
#
# [[fair]]
# name = "count_nonzero"
# why = "torch.count_nonzero counts the active units, and the limit is a minimum of two scales"
#
# [[wrong]]
# name = "float_branch"
# breaks = "one_graph"
# fails = ["graph_breaks"]
# message = "graph break"
#
# [[wrong]]
# name = "kept_disable"
# breaks = "one_graph"
# fails = ["graphs", "graph_breaks"]
# message = "disable|graph\\(s\\) compiled"
#
# [[wrong]]
# name = "always_scaled"
# breaks = "same_summary"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "signed_activity"
# breaks = "same_summary"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make `summarise` compile into one graph.

`summarise` scores a batch of feature rows and reports which share of the hidden units is
active. The grader compiles it with the default `fullgraph=False`, so it runs today, but as
several graphs with eager Python between them. Find every graph break (`torch._dynamo.explain`
lists them all in one run, with the line of each), fix each one, and keep every number the same.
"""

import torch


# BEGIN SOLUTION
def smooth(h):
    """Average each unit with its two neighbours (wrapping around)."""
    return (h + h.roll(1, dims=-1) + h.roll(-1, dims=-1)) / 3
# END SOLUTION
# BEGIN STARTER
# @torch._dynamo.disable  # kept out of compilation since an old compiler bug
# def smooth(h):
#     """Average each unit with its two neighbours (wrapping around)."""
#     return (h + h.roll(1, dims=-1) + h.roll(-1, dims=-1)) / 3
# END STARTER
# BEGIN WRONG kept_disable
# @torch._dynamo.disable
# def smooth(h):
#     """Average each unit with its two neighbours (wrapping around)."""
#     return (h + h.roll(1, dims=-1) + h.roll(-1, dims=-1)) / 3
# END WRONG


LIMIT = 2.0  # largest activation magnitude the scores may carry
THRESHOLD = 0.5  # a unit is active above this magnitude


# BEGIN STARTER
# # TODO: make summarise compile into one graph: how many breaks are there, and where?
# END STARTER
def summarise(x, weight):
    """Row scores, and the share of hidden units whose magnitude is above THRESHOLD."""
    h = torch.tanh(x @ weight) * 3
    peak = h.abs().amax()
    # BEGIN SOLUTION
    h = h * torch.where(peak > LIMIT, LIMIT / peak, 1.0)
    # END SOLUTION
    # BEGIN STARTER
    # if peak > LIMIT:  # scale down so that the largest magnitude is LIMIT
    #     h = h * (LIMIT / peak)
    # END STARTER
    # BEGIN FAIR clamped
    # h = h * (LIMIT / peak.clamp(min=LIMIT))
    # END FAIR
    # BEGIN FAIR count_nonzero
    # h = h * torch.minimum(LIMIT / peak, torch.ones(()))
    # END FAIR
    # BEGIN WRONG float_branch
    # if float(peak) > LIMIT:
    #     h = h * (LIMIT / peak)
    # END WRONG
    # BEGIN WRONG always_scaled
    # h = h * (LIMIT / peak)
    # END WRONG
    h = smooth(h)
    # BEGIN SOLUTION
    fraction = (h.abs() > THRESHOLD).float().mean()
    # END SOLUTION
    # BEGIN STARTER
    # active = (h.abs() > THRESHOLD).nonzero()
    # fraction = torch.tensor(float(active.shape[0])) / h.numel()
    # END STARTER
    # BEGIN FAIR clamped
    # fraction = (h.abs() > THRESHOLD).sum() / h.numel()
    # END FAIR
    # BEGIN FAIR count_nonzero
    # fraction = torch.count_nonzero(h.abs() > THRESHOLD) / h.numel()
    # END FAIR
    # BEGIN WRONG signed_activity
    # fraction = (h > THRESHOLD).float().mean()
    # END WRONG
    return h.sum(dim=-1), fraction


# BEGIN GRADER
def calls(gen):
    """One shape per grading; weights drawn small and large, so that some batches peak under the
    limit (left as they are) and others over it (scaled down), in an order drawn per seed."""
    rows = int(torch.randint(2, 9, (1,), generator=gen))
    scales = [0.05, 0.1, 1.0, 2.0]
    order = torch.randperm(len(scales), generator=gen).tolist()
    batches = []
    for index in order:
        weight = torch.randn(6, 5, generator=gen) * scales[index]
        batches.append((torch.randn(rows, 6, generator=gen), weight))
    return batches
# END GRADER


if __name__ == "__main__":
    x, weight = torch.randn(4, 6), torch.randn(6, 5)
    report = torch._dynamo.explain(summarise)(x, weight)
    print(f"graphs: {report.graph_count}, graph breaks: {report.graph_break_count}")
    for number, reason in enumerate(report.break_reasons, start=1):
        where = reason.user_stack[-1] if reason.user_stack else None
        line = f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno} in {where.name}" if where else "?"
        print(f"break {number} at {line}: {reason.reason.splitlines()[0]}")

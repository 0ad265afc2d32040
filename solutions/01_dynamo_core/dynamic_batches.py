# /// exercise
# format_version = 1
# title = "One graph for every batch size"
# syllabus = ["1.5"]
# entry = "score"
# submission_may_set = ["dynamic"]
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file: it prints every recompile and its reason. Then ask which settings and which lines need the batch size as a number.",
#   "There are two causes, and fixing either alone still recompiles on every new batch size. One is in COMPILE_OPTIONS; the other is how `score` walks over the batch.",
#   "dynamic=False makes every size a constant of the graph. A Python loop over the rows of a tensor is unrolled while tracing (lesson 1.1), so it needs the number of rows too, whatever dynamic= says (lesson 1.5, the range(n) example).",
#   "Set COMPILE_OPTIONS = {\"dynamic\": None} (or True), and compute all rows at once: `torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1) @ keys`.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "few_graphs"
# text = "Batches of any size from 2 rows up are served with at most one recompile in all."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_scores"
# text = "`score` returns the same attention output as now, for any batch size."
# checks = ["correct"]
#
# [[fair]]
# name = "dynamic_true"
# why = "sizes symbolic from the first compile (dynamic=True), all rows in one matrix product"
#
# [[fair]]
# name = "sdpa"
# why = "torch's fused scaled_dot_product_attention over a batch of one, default dynamic"
#
# [[fair]]
# name = "einsum"
# why = "the two products as einsum contractions"
#
# [[wrong]]
# name = "loop_kept"
# breaks = "few_graphs"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 1 allowed.*size mismatch"
#
# [[wrong]]
# name = "static_kept"
# breaks = "few_graphs"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 1 allowed.*size mismatch"
#
# [[wrong]]
# name = "limit_reached"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "\\d of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "softmax_over_rows"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "pad_to_visible"
# breaks = "same_scores"
# fails = ["correct"]
# message = "has shape|differs from the reference|did not return"
# ///
"""Serve every batch size from at most two graphs.

`score(queries, keys)` attends each row of `queries` (shape `(batch, 16)`) over `keys`. A server
calls it on batches of 2 rows and more, in any order, and the grader compiles it with the options
in `COMPILE_OPTIONS`, as the demo below does. Run the file: it recompiles for every new batch size
until it reaches the recompile limit; from then on each new size runs eagerly. Find out why, and
fix it.
"""

# BEGIN STARTER
# # TODO: find out why every new batch size compiles a new graph, and fix it.
# END STARTER

import torch

# BEGIN SOLUTION
COMPILE_OPTIONS = {"dynamic": None}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"dynamic": False}
# END STARTER
# BEGIN FAIR dynamic_true
# COMPILE_OPTIONS = {"dynamic": True}
# END FAIR
# BEGIN WRONG static_kept
# COMPILE_OPTIONS = {"dynamic": False}
# END WRONG


def score(queries, keys):
    # BEGIN SOLUTION
    attention = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
    return attention @ keys
    # END SOLUTION
    # BEGIN STARTER
    # rows = []
    # for query in queries:
    #     attention = torch.softmax(keys @ query / keys.shape[-1] ** 0.5, dim=-1)
    #     rows.append(attention @ keys)
    # return torch.stack(rows)
    # END STARTER
    # BEGIN FAIR sdpa
    # return torch.nn.functional.scaled_dot_product_attention(queries[None], keys[None], keys[None])[0]
    # END FAIR
    # BEGIN FAIR einsum
    # logits = torch.einsum("bd,kd->bk", queries, keys) / keys.shape[-1] ** 0.5
    # return torch.einsum("bk,kd->bd", torch.softmax(logits, dim=-1), keys)
    # END FAIR
    # BEGIN WRONG loop_kept
    # rows = []
    # for query in queries:
    #     attention = torch.softmax(keys @ query / keys.shape[-1] ** 0.5, dim=-1)
    #     rows.append(attention @ keys)
    # return torch.stack(rows)
    # END WRONG
    # BEGIN WRONG limit_reached
    # rows = [torch.softmax(keys @ query / keys.shape[-1] ** 0.5, dim=-1) @ keys for query in queries]
    # return torch.stack(rows)
    # END WRONG
    # BEGIN WRONG softmax_over_rows
    # attention = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=0)
    # return attention @ keys
    # END WRONG
    # BEGIN WRONG pad_to_visible
    # padded = torch.nn.functional.pad(queries, (0, 0, 0, 16 - queries.shape[0]))
    # attention = torch.softmax(padded @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
    # return (attention @ keys)[: queries.shape[0]]
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Batch sizes from 2 up to beyond what the demo shows (at most 13), in an order drawn per
    seed, and a number of keys drawn per seed. Sizes 0 and 1 are left out: Dynamo gives each its
    own graph whatever dynamic= says (lesson 1.5), and the task promises 2 rows or more."""
    keys = torch.randn(int(torch.randint(4, 12, (1,), generator=gen)), 16, generator=gen)
    sizes = (torch.randperm(38, generator=gen)[:10] + 2).tolist() + [2, 17, 40]
    return [(torch.randn(batch, 16, generator=gen), keys) for batch in sizes]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(score, backend="eager", **COMPILE_OPTIONS)
    keys = torch.randn(6, 16)
    for batch in range(2, 14):
        compiled(torch.randn(batch, 16), keys)

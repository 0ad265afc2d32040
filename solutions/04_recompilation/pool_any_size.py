# /// exercise
# format_version = 1
# title = "One compiled graph for requests of any size, empty and single-row ones included"
# syllabus = ["4.1.2", "4.1"]
# entry = "make_pooler"
# factory = true
# driver = "run"
# compile = { fullgraph = true }
# starter_fails = ["graphs", "recompiles"]
# hints = [
#   "Run the file: the size is marked dynamic, and still requests of 0 and of 1 rows each compile a graph of their own. Which guard does the recompile log name?",
#   "Dynamo assumes a dynamic size is at least 2, so that it can decide broadcasting and contiguity once: sizes 0 and 1 are specialised even when you mark the dimension (its log says so, and names the marker that avoids it).",
#   "An unbacked size (`torch._dynamo.decorators.mark_unbacked`) carries no such assumption, and no value to guess from: code may not branch on it in Python any more, so a branch on the size must go, or be written so that every size takes the same path (lesson section 4.1.2).",
#   "In `run`: `torch._dynamo.decorators.mark_unbacked(rows, 0)`. In `forward`, delete the `if rows.shape[0] == 0:` branch: the softmax of no scores is empty and the weighted sum of no rows is zeros, the same answer.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-5
# atol = 1e-6
# points = 1
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "answers"
# text = "Every request gets the same pooled vector as the model run eagerly, zeros for an empty request."
# checks = ["compiles", "correct"]
#
# [[requirements]]
# id = "one_graph"
# text = "One graph serves every request size, 0 and 1 rows included: the schedule compiles once and never recompiles."
# checks = ["graphs", "recompiles"]
#
# [[requirements]]
# id = "compiled"
# text = "Every request runs the compiled model: small ones do not fall back to eager code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "exp_weights"
# why = "the attention weights written out as exponentials over their sum instead of softmax, the size unbacked"
#
# [[fair]]
# name = "mark_in_a_helper"
# why = "the marking done by a small helper that also checks the feature width, and the empty case folded into the pooled sum"
#
# [[wrong]]
# name = "maybe_marker"
# breaks = "one_graph"
# fails = ["graphs", "recompiles"]
# message = "recompile|graph\\(s\\) compiled"
#
# [[wrong]]
# name = "unbacked_keeps_branch"
# breaks = "answers"
# fails = ["compiles"]
# message = "data-dependent|guard"
#
# [[wrong]]
# name = "pad_rows"
# breaks = "answers"
# fails = ["correct"]
# message = "differs from the reference|shape"
#
# [[wrong]]
# name = "eager_small"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "ran compiled code"
# ///
"""Serve requests of any number of rows from one compiled graph.

Each request is a tensor of feature rows, shape (rows, 8); `Pooler` pools them into one vector by
attention (zeros for a request with no rows). Requests come with any number of rows: often
several, sometimes one, sometimes none. The grader builds the model with `make_pooler()`,
compiles it with `fullgraph=True` and calls your `run(model, rows)` once per request. `run`
marks the row count dynamic, yet some sizes still cost a compile of their own. Make one graph
serve them all.
"""

import torch


class Pooler(torch.nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.score = torch.nn.Linear(width, 1)
        self.value = torch.nn.Linear(width, width)
        self.width = width

    def forward(self, rows):
        # BEGIN SOLUTION
        weights = torch.softmax(self.score(rows).squeeze(-1), dim=0)
        return weights @ self.value(rows)
        # END SOLUTION
        # BEGIN STARTER
        # if rows.shape[0] == 0:  # an empty request pools to zeros
        #     return torch.zeros(self.width)
        # weights = torch.softmax(self.score(rows).squeeze(-1), dim=0)
        # return weights @ self.value(rows)
        # END STARTER
        # BEGIN FAIR exp_weights
        # exps = torch.exp(self.score(rows).squeeze(-1))  # the scores are small: no need to subtract the max
        # return (exps / exps.sum()) @ self.value(rows)
        # END FAIR
        # BEGIN FAIR mark_in_a_helper
        # weights = torch.softmax(self.score(rows).squeeze(-1), dim=0)
        # return (weights.unsqueeze(-1) * self.value(rows)).sum(dim=0)
        # END FAIR
        # BEGIN WRONG unbacked_keeps_branch
        # if rows.shape[0] == 0:
        #     return torch.zeros(self.width)
        # weights = torch.softmax(self.score(rows).squeeze(-1), dim=0)
        # return weights @ self.value(rows)
        # END WRONG


def make_pooler():
    torch.manual_seed(0)
    return Pooler()


# BEGIN FAIR mark_in_a_helper
# def _mark_rows(rows, width=8):
#     if rows.shape[-1] != width:
#         raise ValueError(f"expected {width} features per row, got {rows.shape[-1]}")
#     torch._dynamo.decorators.mark_unbacked(rows, 0)
#     return rows
# END FAIR


# BEGIN STARTER
# # TODO: requests of every size, 0 and 1 rows included, should share one compiled graph
# END STARTER
def run(model, rows):
    # BEGIN SOLUTION
    torch._dynamo.decorators.mark_unbacked(rows, 0)
    return model(rows)
    # END SOLUTION
    # BEGIN STARTER
    # torch._dynamo.mark_dynamic(rows, 0)
    # return model(rows)
    # END STARTER
    # BEGIN FAIR mark_in_a_helper
    # return model(_mark_rows(rows))
    # END FAIR
    # BEGIN WRONG maybe_marker
    # torch._dynamo.maybe_mark_dynamic(rows, 0)
    # return model(rows)
    # END WRONG
    # BEGIN WRONG pad_rows
    # padded = torch.cat([rows, rows.new_zeros(2, rows.shape[1])])  # at least two rows: no 0/1 case
    # torch._dynamo.mark_dynamic(padded, 0)
    # return model(padded)
    # END WRONG
    # BEGIN WRONG eager_small
    # if rows.shape[0] < 2:
    #     with torch.compiler.set_stance("force_eager"):
    #         return model(rows)
    # torch._dynamo.mark_dynamic(rows, 0)
    # return model(rows)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Nine requests: the first with several rows, then an order drawn per seed of sizes that
    always include 0 and 1 (twice each) and several from 2 to 12."""
    sizes = [0, 0, 1, 1] + torch.randint(2, 13, (4,), generator=gen).tolist()
    order = torch.randperm(len(sizes), generator=gen).tolist()
    schedule = [int(torch.randint(3, 9, (1,), generator=gen))] + [sizes[i] for i in order]
    return [(torch.randn(n, 8, generator=gen),) for n in schedule]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    def serve(compiled):
        for n in (4, 7, 0, 1, 5):
            print(f"{n} rows ->", run(compiled, torch.randn(n, 8)).detach()[:3])

    print(tally_run(make_pooler(), serve, fullgraph=True))

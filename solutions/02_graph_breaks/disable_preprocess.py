# /// exercise
# format_version = 1
# title = "A noisy preprocessing step kept out of the graph, its heavy helper kept in"
# syllabus = ["2.5.2"]
# entry = "classify"
# starter_fails = ["breaks"]
# hints = [
#   "Run the file and read the break types it lists: `preprocess` reads its batch into Python floats (`tolist()`) and prints a report, and each of those is a graph break.",
#   "None of that report is tensor work, and it is not yours to rewrite. Keep Dynamo out of it: torch.compiler.disable makes Dynamo run a function eagerly, and its call becomes one clean break (lesson section 2.5.2).",
#   "A plain torch.compiler.disable is recursive: everything preprocess calls runs eagerly too, `normalize` (the expensive part) included, and the grader checks that layer_norm is in a graph. `recursive=False` skips only preprocess's own frame; what it calls is compiled on its own.",
#   "Decorate preprocess with `@torch.compiler.disable(recursive=False)`.",
# ]
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Skip inlining `torch.compiler.disable()`d function", "Skip calling `torch.compiler.disable()`d function"]
# callee = "preprocess"
# points = 2
#
# [[checks]]
# kind = "skipped_frames"
# name = "heavy_compiled"
# ops = ["layer_norm", "matmul"]
# points = 2
#
# [[checks]]
# kind = "output"
# name = "report"
# stream = "stdout"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "one_break"
# text = "Dynamo does not trace `preprocess` itself: the only graph break left is where `classify` calls it."
# checks = ["breaks"]
#
# [[requirements]]
# id = "heavy_compiled"
# text = "`normalize` (its layer norm and its projection) still runs inside a graph, and no frame is skipped."
# checks = ["heavy_compiled"]
#
# [[requirements]]
# id = "report_kept"
# text = "Every call prints the report `preprocess` prints now."
# checks = ["report"]
#
# [[requirements]]
# id = "same_scores"
# text = "`classify` returns what it returns now, for batches of any size."
# checks = ["correct"]
#
# [[fair]]
# name = "at_the_call"
# why = "a disabled alias of preprocess made beside it, and classify calls the alias"
#
# [[fair]]
# name = "rebound"
# why = "the module name rebound to the disabled function after its definition, the way one fences off code one may not edit"
#
# [[wrong]]
# name = "work_moved"
# breaks = "one_break"
# fails = ["breaks"]
# message = "not of `preprocess`"
#
# [[wrong]]
# name = "fenced_caller"
# breaks = "one_break"
# fails = ["breaks"]
# message = "not allowed here"
#
# [[wrong]]
# name = "recursive"
# breaks = "heavy_compiled"
# fails = ["heavy_compiled"]
# message = "No graph holds layer_norm"
#
# [[wrong]]
# name = "report_dropped"
# breaks = "report_kept"
# fails = ["report"]
# message = "The message is gone"
#
# [[wrong]]
# name = "normalized_again"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Keep a noisy preprocessing function out of the compiler without losing what it calls.

`classify` is compiled with the default `fullgraph=False`. It starts with `preprocess`, which
prints a report about the batch (it reads the batch into Python floats and prints them: two
graph breaks) and then calls `normalize`, the expensive part. `preprocess` is
another team's code, not yours to rewrite; the rest of the file is yours.
"""

import torch
import torch.nn.functional as F

PROJECTION = torch.randn(8, 8, generator=torch.Generator().manual_seed(0)) / 3


def normalize(x):
    """The expensive part: a layer norm and a projection."""
    return F.layer_norm(x, x.shape[-1:]) @ PROJECTION


# BEGIN SOLUTION
@torch.compiler.disable(recursive=False)
def preprocess(x):
# END SOLUTION
# BEGIN STARTER
# def preprocess(x):  # TODO: classify should break only where it calls this function (not yours to rewrite)
# END STARTER
# BEGIN FAIR at_the_call
# def preprocess(x):
# END FAIR
# BEGIN FAIR rebound
# def preprocess(x):
# END FAIR
# BEGIN WRONG fenced_caller
# def preprocess(x):
# END WRONG
# BEGIN WRONG recursive
# @torch.compiler.disable
# def preprocess(x):
# END WRONG
# BEGIN WRONG report_dropped
# def preprocess(x):
#     rows = [row.clamp(-3, 3) for row in x]
#     return normalize(torch.stack(rows))
#
#
# def _original_preprocess(x):
# END WRONG
# BEGIN WRONG normalized_again
# @torch.compiler.disable
# def preprocess(x):
# END WRONG
    means = x.mean(dim=1).tolist()
    print("batch of", len(means), "rows; row means from", round(min(means), 2), "to", round(max(means), 2))
    rows = [row.clamp(-3, 3) for row in x]
    return normalize(torch.stack(rows))


# BEGIN FAIR rebound
# preprocess = torch.compiler.disable(preprocess, recursive=False)
# END FAIR


def classify(x, weight):
    h = preprocess(x)
    return torch.softmax(torch.relu(h @ weight), dim=-1)


# BEGIN FAIR at_the_call
# fenced_preprocess = torch.compiler.disable(preprocess, recursive=False)
#
#
# def classify(x, weight):
#     h = fenced_preprocess(x)
#     return torch.softmax(torch.relu(h @ weight), dim=-1)
# END FAIR
# BEGIN WRONG fenced_caller
# @torch.compiler.disable(recursive=False)
# def classify(x, weight):
#     h = preprocess(x)
#     return torch.softmax(torch.relu(h @ weight), dim=-1)
# END WRONG
# BEGIN WRONG work_moved
# @torch.compiler.disable
# def _report(x):  # preprocess's report, in a function of its own
#     means = x.mean(dim=1).tolist()
#     print("batch of", len(means), "rows; row means from", round(min(means), 2), "to", round(max(means), 2))
#
#
# def classify(x, weight):
#     _report(x)
#     h = normalize(x.clamp(-3, 3))  # and its clamp, batched: preprocess is never called
#     return torch.softmax(torch.relu(h @ weight), dim=-1)
# END WRONG
# BEGIN WRONG normalized_again
# def classify(x, weight):
#     preprocess(x)  # the report
#     h = normalize(x)  # and the heavy part once more, so that it compiles
#     return torch.softmax(torch.relu(h @ weight), dim=-1)
# END WRONG


# BEGIN GRADER
def calls(gen):
    """Batches of sizes drawn per seed (one row among them) and wide enough (2 * randn) that the
    clamp to [-3, 3] cuts values in every batch."""
    weight = torch.randn(8, 3, generator=gen)
    rows = [int(torch.randint(2, 8, (1,), generator=gen)), 1, int(torch.randint(2, 8, (1,), generator=gen))]
    batches = [2 * torch.randn(n, 8, generator=gen) for n in rows]
    for x in batches:
        x[0, 0] = 4.0  # at least one value the clamp cuts
    return [(x, weight) for x in batches]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, weight = torch.randn(5, 8), torch.randn(8, 3)
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    tally = tally_calls(classify, [(x, weight), (x, weight)], backend="eager")
    print(tally)
    print("break types:", sorted(set(tally.break_types)))
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

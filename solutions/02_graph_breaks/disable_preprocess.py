# /// exercise
# format_version = 1
# title = "Fence off a noisy preprocessing step, but keep its heavy helper compiled"
# syllabus = ["2.5.2"]
# entry = "classify"
# starter_fails = ["breaks"]
# hints = [
#   "Run the file and read the break types it lists: `preprocess` reads its batch into Python floats and prints a report, and each of those is a break, some of them inside a list comprehension.",
#   "None of that report is tensor work, and it is not yours to rewrite. Keep Dynamo out of it: torch.compiler.disable makes Dynamo run a function eagerly, and its call becomes one clean break (lesson section 2.5.2).",
#   "A plain torch.compiler.disable is recursive: everything preprocess calls runs eagerly too, `normalize` (the expensive part) included, and the grader checks that layer_norm is in a graph. `recursive=False` skips only preprocess's own frame; what it calls is compiled on its own.",
#   "Decorate preprocess with `@torch.compiler.disable(recursive=False)`.",
# ]
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Skip inlining `torch.compiler.disable()`d function", "Skip calling `torch.compiler.disable()`d function"]
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
# ///
"""Keep a noisy preprocessing function out of the compiler without losing what it calls.

`classify` is compiled with the default `fullgraph=False`. It starts with `preprocess`, which
prints a report about the batch (Python floats, f-strings, a list comprehension: breaks, and a
frame Dynamo gives up on) and then calls `normalize`, the expensive part. `preprocess` is not
yours to rewrite, and its report must still be printed on every call. Make Dynamo stop trying to
compile `preprocess` itself, so that the only break left is the one where `classify` calls it,
while `normalize` (its layer norm and projection) is still compiled into a graph.
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
# def preprocess(x):  # TODO: keep Dynamo out of this function, but let what it calls be compiled
# END STARTER
    means = x.mean(dim=1).tolist()
    print("batch of", len(means), "rows; row means from", round(min(means), 2), "to", round(max(means), 2))
    rows = [row.clamp(-3, 3) for row in x]
    return normalize(torch.stack(rows))


def classify(x, weight):
    h = preprocess(x)
    return torch.softmax(torch.relu(h @ weight), dim=-1)


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(8, 3, generator=gen)
    return [(2 * torch.randn(5, 8, generator=gen), weight) for _ in range(3)]
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

# Exercise disable_preprocess: Fence off a noisy preprocessing step, but keep its heavy helper compiled
# Edit this file, then check it with:  ./course check disable_preprocess
# Stuck? ./course hint disable_preprocess   Start over: ./course reset disable_preprocess
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


def preprocess(x):  # TODO: keep Dynamo out of this function, but let what it calls be compiled
    means = x.mean(dim=1).tolist()
    print("batch of", len(means), "rows; row means from", round(min(means), 2), "to", round(max(means), 2))
    rows = [row.clamp(-3, 3) for row in x]
    return normalize(torch.stack(rows))


def classify(x, weight):
    h = preprocess(x)
    return torch.softmax(torch.relu(h @ weight), dim=-1)


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, weight = torch.randn(5, 8), torch.randn(8, 3)
    # backend="eager" runs the captured graphs as they are: the same graphs and breaks as any
    # backend, without Inductor's compile time.
    tally = tally_calls(classify, [(x, weight), (x, weight)], backend="eager")
    print(tally)
    print("break types:", sorted(set(tally.break_types)))
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

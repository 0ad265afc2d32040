# Exercise disable_preprocess: A noisy preprocessing step kept out of the graph, its heavy helper kept in
# Edit this file, then check it with:  ./course check disable_preprocess
# Stuck? ./course hint disable_preprocess   Start over: ./course reset disable_preprocess
"""Keep a noisy preprocessing function out of the compiler without losing what it calls.

`classify` is compiled with the default `fullgraph=False`. It starts with `preprocess`, which
prints a report about the batch (it reads the batch into Python floats and prints them: two
graph breaks) and then calls `normalize`, the expensive part. `preprocess` is
another team's code, not yours to rewrite; the rest of the file is yours.

What the grader checks:
- Dynamo does not trace `preprocess` itself: the only graph break left is where `classify` calls it.
- `normalize` (its layer norm and its projection) still runs inside a graph, and no frame is skipped.
- Every call prints the report `preprocess` prints now.
- `classify` returns what it returns now, for batches of any size.
"""

import torch
import torch.nn.functional as F

PROJECTION = torch.randn(8, 8, generator=torch.Generator().manual_seed(0)) / 3


def normalize(x):
    """The expensive part: a layer norm and a projection."""
    return F.layer_norm(x, x.shape[-1:]) @ PROJECTION


def preprocess(x):  # TODO: classify should break only where it calls this function (not yours to rewrite)
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

# Exercise top_scores_by_length: Compile a top-k summary whose k is read from the data, and keep its input validation
# Edit this file, then check it with:  ./course check top_scores_by_length
# Stuck? ./course hint top_scores_by_length   Start over: ./course reset top_scores_by_length
"""Make `top_scores` compile with `fullgraph=True`, and keep it refusing invalid batches.

`top_scores(scores, lengths)` summarises a batch: `scores` has one row of candidate scores per
sequence, `lengths` the number of valid tokens of each sequence. Each row's summary is the mean of
its `k` best scores, where `k` is the longest length in the batch. A batch whose longest length is
below 1 or above the row width is invalid, and the function refuses it with an error. The grader
compiles it with `fullgraph=True`, where it raises on every batch.

What the grader checks:
- `top_scores` compiles with `fullgraph=True` as one graph, for every batch (a new longest length does not recompile).
- On every valid batch it returns the same row scores as the code you were given.
- A batch whose longest length is below 1 or above the row width is still refused with an error when the compiled code runs.
"""

import torch


def top_scores(scores, lengths):
    # TODO: make this compile with fullgraph=True; invalid batches must still raise
    k = lengths.max().item()
    if k < 1 or k > scores.shape[-1]:
        raise ValueError(f"the longest length, {k}, is outside 1..{scores.shape[-1]}")
    return scores.topk(k, dim=-1).values.mean(dim=-1)


if __name__ == "__main__":
    scores, lengths = torch.randn(3, 6), torch.tensor([2, 5, 3])
    print("eager:", top_scores(scores, lengths))
    # backend="eager" runs the captured graph as it is: the same trace and errors as Inductor.
    print("compiled:", torch.compile(top_scores, fullgraph=True, backend="eager")(scores, lengths))

# Exercise breaks_iterator: Accumulate micro-batch losses in one compiled graph
# Edit this file, then check it with:  ./course check breaks_iterator
# Stuck? ./course hint breaks_iterator   Start over: ./course reset breaks_iterator
"""Accumulate the loss over micro-batches in one compiled graph.

`accumulate` (the compiled step) averages a squared-error loss over `MICRO` micro-batches. `train`,
the eager loop around it, hands it an iterator over the batches, and the step pulls micro-batches
out with `next()`. The grader compiles `accumulate` with `fullgraph=True` and calls
`train(compiled_accumulate, batches, weight)` with loops of different lengths. You may change
`accumulate` and `train` together.

What the grader checks:
- `accumulate` compiles with `fullgraph=True`: no graph break.
- One graph serves every step of every loop: no recompile, whatever the number of batches in the loop.
- `train` returns one loss per full group of `MICRO` batches, in order, the same losses as now; a remainder of fewer than `MICRO` batches at the end makes no loss.
- Every step runs compiled: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch

MICRO = 3  # micro-batches per optimizer step


def accumulate(chunk, weight):
    total = 0.0
    for _ in range(MICRO):
        x, y = next(chunk)  # TODO: fullgraph=True stops here. What can Dynamo not see into?
        total = total + ((x @ weight - y) ** 2).mean()
    return total / MICRO


def train(step, batches, weight):
    """The eager loop: one loss per group of MICRO batches. `step` is the compiled accumulate."""
    stream = iter(batches)
    losses = []
    for _ in range(len(batches) // MICRO):
        losses.append(step(stream, weight))
    return torch.stack(losses)


if __name__ == "__main__":
    batches = [(torch.randn(4, 8), torch.randn(4, 2)) for _ in range(2 * MICRO)]
    print(train(torch.compile(accumulate, fullgraph=True, backend="eager"), batches, torch.randn(8, 2)))

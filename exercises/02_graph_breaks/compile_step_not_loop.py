# Exercise compile_step_not_loop: Compile the training step, not the loop around it
# Edit this file, then check it with:  ./course check compile_step_not_loop
# Stuck? ./course hint compile_step_not_loop   Start over: ./course reset compile_step_not_loop
"""Choose where `torch.compile` goes in a training loop.

`make_step()` builds a small regression model and its optimizer and returns the function the
grader compiles (with the default `fullgraph=False`). `fit(step, xs, ys)` is the eager code around
it; the grader calls it once per epoch with the compiled function and checks the losses. Right now
the compiled function runs the whole epoch: it builds the DataLoader, loops over it and logs every
loss. Move the compile boundary: the compiled function must do one training step, while loading
the batches, looping and logging stay in `fit`. Every frame must compile (the grader fails any
frame Dynamo skips), the forward and the loss must be inside graphs, the only breaks allowed are
the three a training step always has on torch 2.13, and the log must say exactly what it says now.
"""

import logging

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("course.train")
log.setLevel(logging.INFO)

BATCH = 4


def make_step():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def step(xs, ys):  # TODO: this compiled function runs the whole epoch; make it one training step
        losses = []
        for i, (x, y) in enumerate(DataLoader(TensorDataset(xs, ys), batch_size=BATCH)):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            log.info("batch %d: loss %.4f", i, loss.item())
            losses.append(loss.detach())
        return torch.stack(losses)

    return step


def fit(step, xs, ys):
    """One epoch. `step` is the compiled function; returns the loss of every batch."""
    return step(xs, ys)  # TODO: load the batches, loop and log here, in eager code


if __name__ == "__main__":
    from autograder.lab import tally_run

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    xs = torch.randn(12, 8)
    ys = xs[:, :1] * 2 - xs[:, 1:2]
    step = make_step()
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_run(step, lambda compiled: [fit(compiled, xs, ys) for _ in range(2)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")
    print("break types:", sorted(set(tally.break_types)))

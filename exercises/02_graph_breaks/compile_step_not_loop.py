# Exercise compile_step_not_loop: A training loop in which every frame compiles
# Edit this file, then check it with:  ./course check compile_step_not_loop
# Stuck? ./course hint compile_step_not_loop   Start over: ./course reset compile_step_not_loop
"""Compile a training loop so that Dynamo skips none of it.

`make_step()` builds a small regression model and its optimizer and returns the function the
grader compiles (with the default `fullgraph=False`). `fit(step, xs, ys)` is the eager code around
it: the grader calls it once per epoch with the compiled function, on datasets of its own, and
compares the losses it returns and the lines it logs with the code run without the compiler.
Today the compiled function runs the whole epoch, and nothing fails; but Dynamo gives up on most
of it without a word.

What the grader checks:
- No frame of the compiled code is skipped, and the model's forward pass runs inside a graph.
- The only graph breaks left are the ones a training step itself has with default settings: at zero_grad, at backward and in the optimizer's step.
- Each epoch logs what it logs now through the `course.train` logger: one line per batch, `batch I: loss L`.
- `fit` trains on every batch of the epoch and returns each batch's loss, epoch after epoch, for any number of rows (the last batch may be short).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance.
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

    def step(xs, ys):  # TODO: this is the function the grader compiles, and it runs the whole epoch
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
    return step(xs, ys)  # TODO: which of the epoch's work must the compiled step do, and which belongs here?


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

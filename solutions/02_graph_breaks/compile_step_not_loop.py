# /// exercise
# format_version = 1
# title = "Compile the training step, not the loop around it"
# syllabus = ["2.5.1"]
# # make_step() builds the model and optimizer and returns the step function the grader compiles.
# entry = "make_step"
# factory = true
# # The grader calls fit(compiled_step, xs, ys) once per epoch: your eager loop around the step.
# driver = "fit"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: the loss goes down and nothing fails, yet the report below the demo shows which frames Dynamo skipped. The grader found the frame that holds the loop: Dynamo gave up on it and ran all of it, forward and backward included, in plain Python.",
#   "The compiled function holds the whole epoch: the DataLoader, the loop and the log call. Dynamo cannot trace the DataLoader's iterator (\"Attempted to inline function marked as skipped\"), and a break it cannot resume from inside a loop makes it skip the whole frame (lesson section 2.5.5.1).",
#   "Lesson section 2.5.1: compile the highest level that does not break much. Here that is one training step: the loop, the data loading and the logging are eager Python and belong in `fit`. A step with backward() and an optimizer is never one graph on torch 2.13; its three breaks are expected and allowed.",
#   "`step(x, y)` does zero_grad, forward, loss, backward, optimizer step and returns the loss; `fit` builds the DataLoader, loops over it, calls `step(x, y)` and logs each loss.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["linear", "mse_loss"]
# points = 2
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# # The three breaks of a training step on torch 2.13: Optimizer.zero_grad is skipped,
# # Tensor.backward() is unsupported, and the optimizer's step has an explicit graph_break().
# allowed = ["Attempted to inline function marked as skipped", "Unsupported Tensor.backward() call", "Call to `torch._dynamo.graph_break()`"]
# points = 1
#
# [[checks]]
# kind = "output"
# name = "log"
# stream = "logging"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-4
# atol = 1e-6
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
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

    # BEGIN SOLUTION
    def step(x, y):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()
    # END SOLUTION
    # BEGIN STARTER
    # def step(xs, ys):  # TODO: this compiled function runs the whole epoch; make it one training step
    #     losses = []
    #     for i, (x, y) in enumerate(DataLoader(TensorDataset(xs, ys), batch_size=BATCH)):
    #         optimizer.zero_grad()
    #         loss = F.mse_loss(model(x), y)
    #         loss.backward()
    #         optimizer.step()
    #         log.info("batch %d: loss %.4f", i, loss.item())
    #         losses.append(loss.detach())
    #     return torch.stack(losses)
    # END STARTER

    return step


def fit(step, xs, ys):
    """One epoch. `step` is the compiled function; returns the loss of every batch."""
    # BEGIN SOLUTION
    losses = []
    for i, (x, y) in enumerate(DataLoader(TensorDataset(xs, ys), batch_size=BATCH)):
        loss = step(x, y)
        log.info("batch %d: loss %.4f", i, loss.item())
        losses.append(loss)
    return torch.stack(losses)
    # END SOLUTION
    # BEGIN STARTER
    # return step(xs, ys)  # TODO: load the batches, loop and log here, in eager code
    # END STARTER


# BEGIN GRADER
def calls(gen):
    xs = torch.randn(12, 8, generator=gen)
    ys = xs[:, :1] * 2 - xs[:, 1:2] + 0.1 * torch.randn(12, 1, generator=gen)
    return [(xs, ys) for _ in range(3)]
# END GRADER


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

# /// exercise
# format_version = 1
# title = "A training loop in which every frame compiles"
# syllabus = ["2.5.1"]
# # make_step() builds the model and optimizer and returns the step function the grader compiles.
# entry = "make_step"
# factory = true
# # The grader calls fit(compiled_step, xs, ys) once per epoch: your eager loop around the step.
# driver = "fit"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: the loss goes down and nothing fails, yet the report below the demo lists a frame Dynamo skipped. Dynamo gave up on the rest of the compiled function after its first break and ran it, forward and backward included, in plain Python.",
#   "The compiled function holds the whole epoch: the DataLoader, the loop and the log call. Dynamo cannot trace the DataLoader's iterator, and a break it cannot resume from inside a loop makes it skip the frame (lesson section 2.5.5.1).",
#   "Lesson section 2.5.1: compile the largest piece that does not break much. Here that is one training step; the data loading, the loop and the logging are eager Python. With default settings a step with backward() and an optimizer is never one graph on torch 2.13: its breaks at zero_grad, backward and the optimizer's step are expected and allowed.",
#   "`step(x, y)` does zero_grad, forward, loss, backward and the optimizer step and returns the loss; `fit` builds the DataLoader, loops over it, calls `step(x, y)` and logs each loss.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# # The model's own forward (its Linear layers) must run in a graph. The loss is not named: it may
# # be F.mse_loss or written out by hand.
# ops = ["linear"]
# points = 2
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# # The breaks of a training step with default settings on torch 2.13: Optimizer.zero_grad is
# # skipped ("inline ... marked as skipped"), Tensor.backward() is unsupported (torch.autograd.backward
# # is "call ... marked as skipped"), and the optimizer's step has an explicit graph_break().
# allowed = ["Attempted to inline function marked as skipped", "Attempted to call function marked as skipped",
#            "Unsupported Tensor.backward() call", "Call to `torch._dynamo.graph_break()`"]
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
#
# [[requirements]]
# id = "step_compiles"
# text = "No frame of the compiled code is skipped, and the model's forward pass runs inside a graph."
# checks = ["skips"]
#
# [[requirements]]
# id = "step_breaks_only"
# text = "The only graph breaks left are the ones a training step itself has with default settings: at zero_grad, at backward and in the optimizer's step."
# checks = ["breaks"]
#
# [[requirements]]
# id = "same_log"
# text = "Each epoch logs what it logs now through the `course.train` logger: one line per batch, `batch I: loss L`."
# checks = ["log"]
#
# [[requirements]]
# id = "same_losses"
# text = "`fit` trains on every batch of the epoch and returns each batch's loss, epoch after epoch, for any number of rows (the last batch may be short)."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "by_hand"
# why = "the loss written out, ((pred - y) ** 2).mean(), and the gradients cleared with model.zero_grad()"
#
# [[fair]]
# name = "log_after"
# why = "fit runs every step of the epoch first and logs the losses afterwards, with torch.autograd.backward in the step"
#
# [[wrong]]
# name = "loop_kept"
# breaks = "step_compiles"
# fails = ["skips"]
# message = "Dynamo skipped.*loop"
#
# [[wrong]]
# name = "float_loss"
# breaks = "step_breaks_only"
# fails = ["breaks"]
# message = "not allowed here: \"Unsupported Tensor.item\\(\\) call"
#
# [[wrong]]
# name = "log_counts_from_one"
# breaks = "same_log"
# fails = ["log"]
# message = "batch 1: loss"
#
# [[wrong]]
# name = "whole_batches_only"
# breaks = "same_losses"
# fails = ["correct"]
# message = "should be a tensor|has shape"
#
# [[wrong]]
# name = "disabled_step"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Compile a training loop so that Dynamo skips none of it.

`make_step()` builds a small regression model and its optimizer and returns the function the
grader compiles (with the default `fullgraph=False`). `fit(step, xs, ys)` is the eager code around
it: the grader calls it once per epoch with the compiled function, on datasets of its own, and
compares the losses it returns and the lines it logs with the code run without the compiler.
Today the compiled function runs the whole epoch, and nothing fails; but Dynamo gives up on most
of it without a word.
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
    # def step(xs, ys):  # TODO: this is the function the grader compiles, and it runs the whole epoch
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
    # BEGIN FAIR by_hand
    # def step(x, y):
    #     model.zero_grad()
    #     loss = ((model(x) - y) ** 2).mean()
    #     loss.backward()
    #     optimizer.step()
    #     return loss.detach()
    # END FAIR
    # BEGIN FAIR log_after
    # def step(x, y):
    #     optimizer.zero_grad(set_to_none=True)
    #     loss = F.mse_loss(model(x), y)
    #     torch.autograd.backward(loss)
    #     optimizer.step()
    #     return loss.detach()
    # END FAIR
    # BEGIN WRONG loop_kept
    # def step(batches):
    #     losses = []
    #     for x, y in batches:
    #         optimizer.zero_grad()
    #         loss = F.mse_loss(model(x), y)
    #         loss.backward()
    #         optimizer.step()
    #         losses.append(loss.detach())
    #     return torch.stack(losses)
    # END WRONG
    # BEGIN WRONG float_loss
    # def step(x, y):
    #     optimizer.zero_grad()
    #     loss = F.mse_loss(model(x), y)
    #     loss.backward()
    #     optimizer.step()
    #     return loss.item()
    # END WRONG
    # BEGIN WRONG disabled_step
    # @torch.compiler.disable
    # def step(x, y):
    #     optimizer.zero_grad()
    #     loss = F.mse_loss(model(x), y)
    #     loss.backward()
    #     optimizer.step()
    #     return loss.detach()
    # END WRONG

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
    # return step(xs, ys)  # TODO: which of the epoch's work must the compiled step do, and which belongs here?
    # END STARTER
    # BEGIN FAIR log_after
    # losses = torch.stack([step(x, y) for x, y in DataLoader(TensorDataset(xs, ys), batch_size=BATCH)])
    # for i, loss in enumerate(losses.tolist()):
    #     log.info("batch %d: loss %.4f", i, loss)
    # return losses
    # END FAIR
    # BEGIN WRONG loop_kept
    # losses = step(list(DataLoader(TensorDataset(xs, ys), batch_size=BATCH)))
    # for i, loss in enumerate(losses):
    #     log.info("batch %d: loss %.4f", i, loss.item())
    # return losses
    # END WRONG
    # BEGIN WRONG float_loss
    # losses = []
    # for i, (x, y) in enumerate(DataLoader(TensorDataset(xs, ys), batch_size=BATCH)):
    #     loss = step(x, y)
    #     log.info("batch %d: loss %.4f", i, loss)
    #     losses.append(loss)
    # return torch.tensor(losses)
    # END WRONG
    # BEGIN WRONG log_counts_from_one
    # losses = []
    # for i, (x, y) in enumerate(DataLoader(TensorDataset(xs, ys), batch_size=BATCH), start=1):
    #     loss = step(x, y)
    #     log.info("batch %d: loss %.4f", i, loss.item())
    #     losses.append(loss)
    # return torch.stack(losses)
    # END WRONG
    # BEGIN WRONG whole_batches_only
    # losses = []
    # for i in range(len(xs) // BATCH):
    #     loss = step(xs[i * BATCH:(i + 1) * BATCH], ys[i * BATCH:(i + 1) * BATCH])
    #     log.info("batch %d: loss %.4f", i, loss.item())
    #     losses.append(loss)
    # return torch.stack(losses)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Three epochs: two over a dataset whose last batch is short (1 to 3 rows, drawn per seed),
    then one over a dataset of whole batches only. The sizes are drawn per seed, from two batches
    to four."""
    def dataset(rows):
        xs = torch.randn(rows, 8, generator=gen)
        return xs, xs[:, :1] * 2 - xs[:, 1:2] + 0.1 * torch.randn(rows, 1, generator=gen)

    batches = int(torch.randint(2, 5, (1,), generator=gen))
    short = dataset(BATCH * batches + int(torch.randint(1, BATCH, (1,), generator=gen)))
    return [short, short, dataset(BATCH * int(torch.randint(2, 5, (1,), generator=gen)))]
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

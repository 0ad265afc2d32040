# Exercise print_in_step: Compile a training step that reports its loss
# Edit this file, then check it with:  ./course check print_in_step
# Stuck? ./course hint print_in_step   Start over: ./course reset print_in_step
"""Compile a training step that prints its loss, and keep the line it prints.

`train_step` prints this step's loss and the running loss, then folds the loss into the running
loss (an exponential moving average, updated in place), and the people who run it rely on that
line. With `fullgraph=True` the print breaks the graph. Only one configuration change is allowed:
`torch._dynamo.config.reorderable_logging_functions` may gain `print`; any other change to
`torch._dynamo.config` fails the grade.

What the grader checks:
- `train_step` compiles with `fullgraph=True` into one graph that serves every call.
- Each call prints exactly the line it prints now: the loss, and the running loss as it was before this step updated it.
- It returns `(pred, loss, running)` as now, with `running` updated by this step's loss.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


def train_step(x, target, weight, running):
    # TODO: make train_step compile with fullgraph=True, and keep the line it prints.
    pred = torch.tanh(x @ weight)
    loss = (pred - target).pow(2).mean()
    print("loss:", loss, "running:", running)
    running.mul_(0.9).add_(0.1 * loss)
    return pred, loss, running


if __name__ == "__main__":
    compiled = torch.compile(train_step, fullgraph=True, backend="eager")
    running = torch.tensor(1.0)
    for _ in range(2):
        compiled(torch.randn(5, 6), torch.randn(5, 3), torch.randn(6, 3), running)

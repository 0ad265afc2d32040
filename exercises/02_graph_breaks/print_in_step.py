# Exercise print_in_step: Keep the progress message without breaking the graph
# Edit this file, then check it with:  ./course check print_in_step
# Stuck? ./course hint print_in_step   Start over: ./course reset print_in_step
"""Compile a training step that prints its loss, and keep the print.

`train_step` prints the loss of every step, and the people who run it rely on that line. With
`fullgraph=True` the print breaks the graph. Make `train_step` compile into one graph while each
call still prints exactly what it prints without the compiler. Only one configuration change is
allowed: `torch._dynamo.config.reorderable_logging_functions` may gain `print`; any other change
to `torch._dynamo.config` fails the grade.
"""

import torch


def train_step(x, target, weight):
    pred = torch.tanh(x @ weight)
    loss = (pred - target).pow(2).mean()
    print("loss:", loss)  # TODO: this print breaks the graph, and the message must stay
    return pred, loss


if __name__ == "__main__":
    compiled = torch.compile(train_step, fullgraph=True, backend="eager")
    compiled(torch.randn(5, 6), torch.randn(5, 3), torch.randn(6, 3))

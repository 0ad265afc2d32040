# Exercise recompile_module_counter: An int counter on an nn.Module recompiles every call
# Edit this file, then check it with:  ./course check recompile_module_counter
# Stuck? ./course hint recompile_module_counter   Start over: ./course reset recompile_module_counter
"""Keep `RunningCenter` from recompiling as its counter grows.

`RunningCenter` subtracts a running mean of everything it has seen. It counts the batches in a
Python int attribute, `self.seen`, and Dynamo guards integer attributes of modules on their
value: every call fails the guard of the last one and compiles again, until the recompile
limit makes every later call run eagerly. The grader builds the module with `make_model()`,
compiles it and calls it 12 times. Make it run compiled on every call with at most one recompile.
"""

import torch


class RunningCenter(torch.nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("mean", torch.zeros(features))
        self.seen = 0  # TODO: Dynamo guards an int attribute of a module on its value

    def forward(self, x):
        self.seen += 1
        self.mean += (x.mean(dim=0) - self.mean) / self.seen
        return x - self.mean


def make_model():
    return RunningCenter(8)


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    model = torch.compile(make_model(), backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    for i in range(12):
        model(torch.randn(4, 8) + i)

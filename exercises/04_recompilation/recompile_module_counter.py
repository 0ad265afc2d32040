# Exercise recompile_module_counter: Keep a counting module to one recompile
# Edit this file, then check it with:  ./course check recompile_module_counter
# Stuck? ./course hint recompile_module_counter   Start over: ./course reset recompile_module_counter
"""Stop `RunningCenter` from recompiling as it counts its batches.

`RunningCenter` subtracts a running mean of every batch it has seen, counting the batches to
weight each one equally. The grader builds the module with `make_model()`, compiles it and calls
it on a stream of batches. Compiled, it recompiles on every call until it reaches the recompile
limit, and from then on every call runs in plain Python.

What the grader checks:
- The compiled module recompiles at most once over all the calls.
- Every call runs compiled code.
- Each call returns its batch minus the mean of every batch seen so far (each batch counted once), as now.
"""

import torch


class RunningCenter(torch.nn.Module):
    def __init__(self, features):
        # TODO: find what every recompile is about, and keep this module to one recompile at most.
        super().__init__()
        self.register_buffer("mean", torch.zeros(features))
        self.seen = 0

    def forward(self, x):
        self.seen += 1
        self.mean += (x.mean(dim=0) - self.mean) / self.seen
        return x - self.mean


def make_model():
    return RunningCenter(8)


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    model = torch.compile(make_model(), backend="eager")
    for i in range(12):
        model(torch.randn(4, 8) + i)

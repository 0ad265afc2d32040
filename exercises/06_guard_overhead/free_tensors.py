# Exercise free_tensors: Serve a reloadable model whose graphs take only the real input
# Edit this file, then check it with:  ./course check free_tensors
# Stuck? ./course hint free_tensors   Start over: ./course reset free_tensors
"""Make each call of a served model cheaper before its graph runs, without serving stale weights.

`Tower` is a 4-layer model that a service keeps in memory. The grader builds it with
`make_model()`, compiles it, and drives it with your `run(model, x, weights)` over a schedule
of calls: `weights` is usually None, and sometimes new weights from a training job, which
`reload` loads into the model first. Run the file: each graph takes `x` and all eight parameters as
inputs, and the bytecode that Dynamo wrote gathers them before every call.

What the grader checks:
- Each graph takes only the real input `x`: no parameter is gathered as a graph input before a call.
- Every answer is computed with the weights loaded last; `reload` may come between any two calls.
- Every call runs compiled code.
"""

import torch
import torch._dynamo

# TODO: each graph takes the input and all eight parameters; make it take only `x`.


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def make_model():
    return Tower()


def reload(model, weights):
    """Load new weights, a (weight, bias) pair per layer, into the served model."""
    for layer, (weight, bias) in zip(model.layers, weights):
        layer.load_state_dict({"weight": weight, "bias": bias}, assign=True)


def run(model, x, weights):
    if weights is not None:
        reload(model, weights)
    return model(x)


if __name__ == "__main__":
    from autograder.lab import guard_report

    new_weights = [(torch.randn(8, 8) / 3, torch.randn(8) / 3) for _ in range(4)]
    schedule = [(torch.randn(2, 8), None), (torch.randn(2, 8), None), (torch.randn(2, 8), new_weights)]
    print(guard_report(make_model(), schedule, {}, driver=run))  # "inputs": the graph inputs of each graph

# Exercise compile_in_place: Checkpoints of a compiled model that a plain Net loads
# Edit this file, then check it with:  ./course check compile_in_place
# Stuck? ./course hint compile_in_place   Start over: ./course reset compile_in_place
"""Make checkpoints of a compiled model loadable by code that never compiles.

`prepare(model, backend)` compiles the model for training. `save_checkpoint` writes its
`state_dict()`, and the evaluation job, which builds a plain `Net()` and never compiles anything,
loads that file with `load_state_dict` (strictly, as `load_for_eval` does). Today that load fails,
and code that checks `isinstance(model, Net)` on the training side fails too. `save_checkpoint`
and `load_for_eval` are the evaluation team's: leave them as they are.

What the grader checks:
- `prepare` returns the model itself, still a `Net`, and that model runs compiled with the backend `prepare` is given.
- A checkpoint `save_checkpoint` writes from that model loads strictly into a plain `Net`, and the loaded `Net` computes what the compiled model computed.
"""

import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = torch.nn.Linear(8, 16)
        self.lin2 = torch.nn.Linear(16, 2)

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x)))


def prepare(model, backend="inductor"):
    """Compile `model` for training; return the model the training loop should use."""
    # TODO: the evaluation job cannot load the checkpoints of the model this returns.
    return torch.compile(model, backend=backend)


def save_checkpoint(model, path):
    torch.save(model.state_dict(), path)


def load_for_eval(path):
    """The evaluation job: a plain Net, never compiled."""
    net = Net()
    net.load_state_dict(torch.load(path))
    return net


if __name__ == "__main__":
    import os
    import tempfile

    torch.manual_seed(0)
    # backend="eager": Dynamo captures the graph and runs it as it is, without Inductor's compile
    # time; what this exercise is about (the object and its state_dict) is the same for any backend.
    model = prepare(Net(), backend="eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("trained; the model's type:", type(model).__name__, "| isinstance(model, Net):", isinstance(model, Net))
    print("state_dict keys:", list(model.state_dict())[:2], "...")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        save_checkpoint(model, path)
        print("evaluation job loaded a", type(load_for_eval(path)).__name__)

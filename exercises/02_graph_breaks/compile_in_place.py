# Exercise compile_in_place: Checkpoints that the evaluation job and the training job both load
# Edit this file, then check it with:  ./course check compile_in_place
# Stuck? ./course hint compile_in_place   Start over: ./course reset compile_in_place
"""Make the checkpoints of a compiled model loadable by the evaluation job, and keep training.

`prepare(model, backend)` compiles the model for training, and `save_checkpoint` writes its
`state_dict()`. Two jobs read those checkpoints. The evaluation job builds a plain `Net()`, never
compiles anything, and loads a checkpoint strictly (`load_for_eval`): today that load fails, and
code on the training side that checks `isinstance(model, Net)` fails too. The training job
prepares a fresh model, continues from a checkpoint of the folder with `resume(model,
checkpoint)`, and trains on: it must keep working from the checkpoints written so far (by today's
code) and from those written once this is fixed. `save_checkpoint` and `load_for_eval` belong to
the evaluation team: leave them as they are.

What the grader checks:
- `prepare` returns the model itself, still a `Net`, and that model runs compiled with the backend `prepare` is given.
- A checkpoint `save_checkpoint` writes from that model loads strictly into a plain `Net`, and the loaded `Net` computes what the compiled model computed.
- Training resumes, with `resume` on the model `prepare` returns, from every checkpoint in the folder: those written before this change and those written after it; the resumed model runs compiled and computes with the checkpoint's weights.
"""

import torch


# TODO: find out why the evaluation job cannot load the checkpoints, keep training resuming from the old and the new ones, and fix it.


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = torch.nn.Linear(8, 16)
        self.lin2 = torch.nn.Linear(16, 2)

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x)))


def prepare(model, backend="inductor"):
    """Compile `model` for training; return the model the training loop should use."""
    return torch.compile(model, backend=backend)


def resume(model, checkpoint):
    """Continue from `checkpoint`, a state_dict as `torch.load` reads it from the folder."""
    model.load_state_dict(checkpoint)


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
    with tempfile.TemporaryDirectory() as folder:
        last_month = os.path.join(folder, "last_month.pt")
        torch.save(torch.compile(Net(), backend="eager").state_dict(), last_month)  # written by today's prepare
        model = prepare(Net(), backend="eager")
        resume(model, torch.load(last_month))
        print("training resumed from last month's checkpoint")
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = model(torch.randn(4, 8)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("trained; the model's type:", type(model).__name__, "| isinstance(model, Net):", isinstance(model, Net))
        print("state_dict keys:", list(model.state_dict())[:2], "...")
        path = os.path.join(folder, "checkpoint.pt")
        save_checkpoint(model, path)
        resume(prepare(Net(), backend="eager"), torch.load(path))
        print("training resumed from today's checkpoint")
        print("evaluation job loaded a", type(load_for_eval(path)).__name__)

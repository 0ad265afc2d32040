# /// exercise
# format_version = 1
# title = "Compile the model in place so its checkpoints load anywhere"
# syllabus = ["2.5.1.1", "2.5.1"]
# entry = "Net"
# factory = true
# starter_fails = ["checkpoint", "same_model"]
# hints = [
#   "Run the file: training works, then loading the checkpoint into a plain Net fails with missing and unexpected keys. Compare the key names it prints.",
#   "torch.compile(model) does not change the model: it returns a new object, an OptimizedModule, that holds the model as `_orig_mod`. Its state_dict keys carry that prefix (`_orig_mod.lin1.weight`), and it is not a Net.",
#   "Lesson section 2.5.1.1: `model.compile()` compiles the model in place. It returns None, the model stays a Net, and its state_dict is the one a plain Net has.",
#   "In prepare: `model.compile(backend=backend)` and `return model`.",
# ]
#
# [[checks]]
# kind = "checkpoint"
# name = "checkpoint"
# model = "Net"
# prepare = "prepare"
# save = "save_checkpoint"
# points = 2
#
# [[checks]]
# kind = "same_module"
# name = "same_model"
# model = "Net"
# prepare = "prepare"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Make checkpoints of a compiled model loadable by code that never compiles.

`prepare(model, backend)` compiles the model for training. `save_checkpoint` writes its
`state_dict()`, and the evaluation job, which builds a plain `Net()` and never compiles anything,
loads that file with `load_state_dict` (strictly, as `load_for_eval` does). Today that load fails.
Change `prepare` so that the model it returns runs compiled with the given backend, is still a
`Net` (code that checks `isinstance(model, Net)` must keep working), and saves checkpoints that a
plain `Net` loads. Do not change `save_checkpoint` or `load_for_eval`: the evaluation job is not
yours.
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
    # BEGIN SOLUTION
    model.compile(backend=backend)
    return model
    # END SOLUTION
    # BEGIN STARTER
    # return torch.compile(model, backend=backend)  # TODO: this returns a wrapper, not the model
    # END STARTER


def save_checkpoint(model, path):
    torch.save(model.state_dict(), path)


def load_for_eval(path):
    """The evaluation job: a plain Net, never compiled."""
    net = Net()
    net.load_state_dict(torch.load(path))
    return net


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 8, generator=gen),) for _ in range(2)]
# END GRADER


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

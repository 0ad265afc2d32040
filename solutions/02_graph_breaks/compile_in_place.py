# /// exercise
# format_version = 1
# title = "Checkpoints of a compiled model that a plain Net loads"
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
# [[requirements]]
# id = "still_a_net"
# text = "`prepare` returns the model itself, still a `Net`, and that model runs compiled with the backend `prepare` is given."
# checks = ["same_model"]
#
# [[requirements]]
# id = "loads_plainly"
# text = "A checkpoint `save_checkpoint` writes from that model loads strictly into a plain `Net`, and the loaded `Net` computes what the compiled model computed."
# checks = ["checkpoint"]
#
# [[fair]]
# name = "compiled_forward"
# why = "the model's forward replaced by a compiled one on the instance: the module and its state_dict stay as they are"
#
# [[fair]]
# name = "bound_function"
# why = "Net.forward compiled as a plain function and bound to this one instance with functools.partial"
#
# [[wrong]]
# name = "compiled_and_dropped"
# breaks = "still_a_net"
# fails = ["same_model"]
# message = "ran no compiled code"
#
# [[wrong]]
# name = "wrapped_layers"
# breaks = "loads_plainly"
# fails = ["checkpoint"]
# message = "cannot load the checkpoint"
# ///
"""Make checkpoints of a compiled model loadable by code that never compiles.

`prepare(model, backend)` compiles the model for training. `save_checkpoint` writes its
`state_dict()`, and the evaluation job, which builds a plain `Net()` and never compiles anything,
loads that file with `load_state_dict` (strictly, as `load_for_eval` does). Today that load fails,
and code that checks `isinstance(model, Net)` on the training side fails too. `save_checkpoint`
and `load_for_eval` are the evaluation team's: leave them as they are.
"""

import torch

# BEGIN FAIR bound_function
# import functools
# END FAIR


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
    # # TODO: the evaluation job cannot load the checkpoints of the model this returns.
    # return torch.compile(model, backend=backend)
    # END STARTER
    # BEGIN FAIR compiled_forward
    # model.forward = torch.compile(model.forward, backend=backend)
    # return model
    # END FAIR
    # BEGIN FAIR bound_function
    # model.forward = functools.partial(torch.compile(Net.forward, backend=backend), model)
    # return model
    # END FAIR
    # BEGIN WRONG compiled_and_dropped
    # torch.compile(model, backend=backend)  # the compiled wrapper is made and dropped
    # return model
    # END WRONG
    # BEGIN WRONG wrapped_layers
    # model.lin1 = torch.compile(model.lin1, backend=backend)
    # model.lin2 = torch.compile(model.lin2, backend=backend)
    # return model
    # END WRONG


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

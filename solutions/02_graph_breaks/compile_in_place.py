# /// exercise
# format_version = 1
# title = "Checkpoints that the evaluation job and the training job both load"
# syllabus = ["2.5.1.1", "2.5.1"]
# entry = "Net"
# factory = true
# starter_fails = ["checkpoint", "same_model", "resumes"]
# hints = [
#   "Run the file: the training job resumes from last month's checkpoint, but the evaluation job cannot load the checkpoint it writes, and the training side's `isinstance(model, Net)` is False. Compare the key names it prints.",
#   "torch.compile(model) does not change the model: it returns a new object, an OptimizedModule, that holds the model as `_orig_mod`. Its state_dict keys carry that prefix (`_orig_mod.lin1.weight`), and it is not a Net. Lesson section 2.5.1.1 shows the other way to compile a module.",
#   "Once the model the training loop uses is a plain Net again, the checkpoints already on disk (written by the old wrapper, every key `_orig_mod.` + a Net's key) no longer load into it, and the new ones must load too. `resume` is the place for that: a checkpoint is a dict of names to tensors.",
#   "In prepare: `model.compile(backend=backend)` and `return model`. In resume: load `{key.removeprefix(\"_orig_mod.\"): value for key, value in checkpoint.items()}`.",
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
# kind = "resume"
# name = "resumes"
# model = "Net"
# prepare = "prepare"
# resume = "resume"
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
# [[requirements]]
# id = "resumes_any"
# text = "Training resumes, with `resume` on the model `prepare` returns, from every checkpoint in the folder: those written before this change and those written after it; the resumed model runs compiled and computes with the checkpoint's weights."
# checks = ["resumes"]
#
# [[fair]]
# name = "compiled_forward"
# why = "the model's forward replaced by a compiled one on the instance, and torch's own consume_prefix_in_state_dict_if_present strips the old prefix"
#
# [[fair]]
# name = "bound_function"
# why = "Net.forward compiled as a plain function and bound to this one instance; old checkpoints loaded through a throwaway OptimizedModule around the model, whose keys are the old ones"
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
#
# [[wrong]]
# name = "in_place_only"
# breaks = "resumes_any"
# fails = ["resumes"]
# message = "Resuming from a checkpoint written from the wrapper.*_orig_mod\\..*raised RuntimeError.*Missing key\\(s\\)"
#
# [[wrong]]
# name = "not_strict"
# breaks = "resumes_any"
# fails = ["resumes"]
# message = "differs from the reference.*does not hold the checkpoint's weights"
# ///
"""Make the checkpoints of a compiled model loadable by the evaluation job, and keep training.

`prepare(model, backend)` compiles the model for training, and `save_checkpoint` writes its
`state_dict()`. Two jobs read those checkpoints. The evaluation job builds a plain `Net()`, never
compiles anything, and loads a checkpoint strictly (`load_for_eval`): today that load fails, and
code on the training side that checks `isinstance(model, Net)` fails too. The training job
prepares a fresh model, continues from a checkpoint of the folder with `resume(model,
checkpoint)`, and trains on: it must keep working from the checkpoints written so far (by today's
code) and from those written once this is fixed. `save_checkpoint` and `load_for_eval` belong to
the evaluation team: leave them as they are.
"""

import torch

# BEGIN FAIR compiled_forward
# from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present
# END FAIR
# BEGIN FAIR bound_function
# import functools
# END FAIR

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
    # BEGIN SOLUTION
    model.compile(backend=backend)
    return model
    # END SOLUTION
    # BEGIN STARTER
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


def resume(model, checkpoint):
    """Continue from `checkpoint`, a state_dict as `torch.load` reads it from the folder."""
    # BEGIN SOLUTION
    model.load_state_dict({key.removeprefix("_orig_mod."): value for key, value in checkpoint.items()})
    # END SOLUTION
    # BEGIN STARTER
    # model.load_state_dict(checkpoint)
    # END STARTER
    # BEGIN FAIR compiled_forward
    # checkpoint = dict(checkpoint)
    # consume_prefix_in_state_dict_if_present(checkpoint, "_orig_mod.")
    # model.load_state_dict(checkpoint)
    # END FAIR
    # BEGIN FAIR bound_function
    # if all(key.startswith("_orig_mod.") for key in checkpoint):
    #     torch.compile(model).load_state_dict(checkpoint)  # the old wrapper's keys: load through one
    # else:
    #     model.load_state_dict(checkpoint)
    # END FAIR
    # BEGIN WRONG in_place_only
    # model.load_state_dict(checkpoint)
    # END WRONG
    # BEGIN WRONG not_strict
    # model.load_state_dict(checkpoint, strict=False)
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

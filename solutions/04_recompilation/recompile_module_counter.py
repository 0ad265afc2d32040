# /// exercise
# format_version = 1
# title = "Keep a counting module to one recompile"
# syllabus = ["4.3"]
# entry = "make_model"
# factory = true
# allow_config = ["allow_unspec_int_on_nn_module"]
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles: the failing guard is `self.seen == N`, a new N on every call, until the recompile limit sends every later call to plain Python.",
#   "Dynamo treats integer attributes of an nn.Module as constants: each value gets its own graph. Automatic dynamic shapes do not apply to them by default.",
#   "Either keep the count in a tensor buffer (guarded on metadata, not value, as BatchNorm does with num_batches_tracked), or set torch._dynamo.config.allow_unspec_int_on_nn_module = True (lesson section 4.3).",
#   "In __init__: self.register_buffer(\"seen\", torch.tensor(0))   — the forward stays as it is.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "few_graphs"
# text = "The compiled module recompiles at most once over all the calls."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_centering"
# text = "Each call returns its batch minus the mean of every batch seen so far (each batch counted once), as now."
# checks = ["correct"]
#
# [[fair]]
# name = "tensor_attribute"
# why = "the count in a plain tensor attribute, not a registered buffer"
#
# [[fair]]
# name = "float_count"
# why = "the count as a Python float: on torch 2.13 floats are not specialised, so it recompiles once (lesson 4.2)"
#
# [[fair]]
# name = "unspec_flag"
# why = "the int kept, and torch._dynamo.config.allow_unspec_int_on_nn_module turned on"
#
# [[wrong]]
# name = "list_counter"
# breaks = "few_graphs"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 1 allowed"
#
# [[wrong]]
# name = "dict_counter"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "\\d+ of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "moving_average"
# breaks = "same_centering"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Stop `RunningCenter` from recompiling as it counts its batches.

`RunningCenter` subtracts a running mean of every batch it has seen, counting the batches to
weight each one equally. The grader builds the module with `make_model()`, compiles it and calls
it on a stream of batches. Compiled, it recompiles on every call until it reaches the recompile
limit, and from then on every call runs in plain Python.
"""

import torch

# BEGIN FAIR unspec_flag
# import torch._dynamo
#
# torch._dynamo.config.allow_unspec_int_on_nn_module = True
# END FAIR


class RunningCenter(torch.nn.Module):
    def __init__(self, features):
        # BEGIN STARTER
        # # TODO: find what every recompile is about, and keep this module to one recompile at most.
        # END STARTER
        super().__init__()
        self.register_buffer("mean", torch.zeros(features))
        # BEGIN SOLUTION
        self.register_buffer("seen", torch.tensor(0))
        # END SOLUTION
        # BEGIN STARTER
        # self.seen = 0
        # END STARTER
        # BEGIN FAIR tensor_attribute
        # self.seen = torch.zeros((), dtype=torch.long)
        # END FAIR
        # BEGIN FAIR float_count
        # self.seen = 0.0
        # END FAIR
        # BEGIN FAIR unspec_flag
        # self.seen = 0
        # END FAIR
        # BEGIN WRONG list_counter
        # self.seen = [0]  # a mutable box for the count
        # END WRONG
        # BEGIN WRONG dict_counter
        # self.stats = {"seen": 0}
        # END WRONG
        # BEGIN WRONG moving_average
        # self.momentum = 0.1  # no count at all: nothing to recompile on
        # END WRONG

    def forward(self, x):
        # BEGIN SOLUTION
        self.seen += 1
        self.mean += (x.mean(dim=0) - self.mean) / self.seen
        # END SOLUTION
        # BEGIN STARTER
        # self.seen += 1
        # self.mean += (x.mean(dim=0) - self.mean) / self.seen
        # END STARTER
        # BEGIN WRONG list_counter
        # self.seen[0] += 1
        # self.mean += (x.mean(dim=0) - self.mean) / self.seen[0]
        # END WRONG
        # BEGIN WRONG dict_counter
        # self.stats["seen"] += 1
        # self.mean += (x.mean(dim=0) - self.mean) / self.stats["seen"]
        # END WRONG
        # BEGIN WRONG moving_average
        # self.mean.lerp_(x.mean(dim=0), self.momentum)
        # END WRONG
        return x - self.mean


def make_model():
    return RunningCenter(8)


# BEGIN GRADER
def calls(gen):
    """Twelve to sixteen batches (more than the recompile limit), their row count and their drift
    drawn per seed; the rows stay fixed within one grading so that only the counter can recompile."""
    rows = int(torch.randint(2, 10, (1,), generator=gen))
    count = int(torch.randint(12, 17, (1,), generator=gen))
    drift = torch.randn(count, generator=gen) * 3
    return [(torch.randn(rows, 8, generator=gen) + drift[i],) for i in range(count)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    model = torch.compile(make_model(), backend="eager")
    for i in range(12):
        model(torch.randn(4, 8) + i)

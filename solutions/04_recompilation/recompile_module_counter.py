# /// exercise
# format_version = 1
# title = "An int counter on an nn.Module recompiles every call"
# syllabus = ["4.3"]
# entry = "make_model"
# factory = true
# allow_config = ["allow_unspec_int_on_nn_module"]
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles: the failing guard is `self.seen == N`, a new N on every call, until the recompile limit sends the rest of the calls to plain Python.",
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
# ///
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
        # BEGIN SOLUTION
        self.register_buffer("seen", torch.tensor(0))
        # END SOLUTION
        # BEGIN STARTER
        # self.seen = 0  # TODO: Dynamo guards an int attribute of a module on its value
        # END STARTER

    def forward(self, x):
        self.seen += 1
        self.mean += (x.mean(dim=0) - self.mean) / self.seen
        return x - self.mean


def make_model():
    return RunningCenter(8)


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 8, generator=gen) + i,) for i in range(12)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    model = torch.compile(make_model(), backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    for i in range(12):
        model(torch.randn(4, 8) + i)

# /// exercise
# format_version = 1
# title = "Parameters as free tensors: one graph input instead of nine"
# syllabus = ["6.1"]
# entry = "make_model"
# factory = true
# allow_config = ["install_free_tensors"]
# starter_fails = ["guards"]
# hints = [
#   "Run the file: the graph takes 9 inputs, the input and 8 parameters, gathered by bytecode before every call.",
#   "Dynamo can install parameters and globals as attributes of the graph instead of inputs.",
#   "torch._dynamo.config.install_free_tensors = True at the top of the file (lesson section 6.1). Remember its price: a parameter rebound later is not seen.",
#   "torch._dynamo.config.install_free_tensors = True",
# ]
#
# [[checks]]
# kind = "guards"
# max_inputs = 1
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Cut the per-call work of gathering parameters as graph inputs.

The grader compiles `make_model()` (4 Linear layers) and calls it 6 times. Each graph takes the
input plus all 8 parameters as inputs. Make each graph take only the real input (1 input),
with a torch._dynamo config setting at the top of the file. The model's parameters are never
rebound in this schedule, so the unsafe side of the setting does not bite here.
"""

import torch

# BEGIN SOLUTION
import torch._dynamo

torch._dynamo.config.install_free_tensors = True
# END SOLUTION
# BEGIN STARTER
# # TODO: every parameter is a graph input, gathered before each call
# END STARTER


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def make_model():
    return Tower()


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(2, 8, generator=gen),) for _ in range(6)]
# END GRADER


if __name__ == "__main__":
    import torch._dynamo
    from autograder.lab import guard_report

    schedule = [(torch.randn(2, 8),) for _ in range(3)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {}))

# Exercise free_tensors: Parameters as free tensors: one graph input instead of nine
# Edit this file, then check it with:  ./course check free_tensors
# Stuck? ./course hint free_tensors   Start over: ./course reset free_tensors
"""Cut the per-call work of gathering parameters as graph inputs.

The grader compiles `make_model()` (4 Linear layers) and calls it 6 times. Each graph takes the
input plus all 8 parameters as inputs. Make each graph take only the real input (1 input),
with a torch._dynamo config setting at the top of the file. The model's parameters are never
rebound in this schedule, so the unsafe side of the setting does not bite here.
"""

import torch

# TODO: every parameter is a graph input, gathered before each call


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


if __name__ == "__main__":
    import torch._dynamo
    from autograder.lab import guard_report

    schedule = [(torch.randn(2, 8),) for _ in range(3)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {}))

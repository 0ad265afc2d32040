# Exercise nested_region: Trace the repeated layer once with nested_compile_region
# Edit this file, then check it with:  ./course check nested_region
# Stuck? ./course hint nested_region   Start over: ./course reset nested_region
"""Keep compiling the whole model, but trace its repeated layer only once.

`Stack` applies `layer` 12 times with 12 sets of weights. The grader compiles the whole model
(fullgraph=True) and calls it 3 times. Today the graph inlines `layer` 12 times. Mark `layer` as
a nested compile region, so that the graph calls one shared subgraph (at least 11
`invoke_subgraph` nodes: on 2.13 the first call is inlined; one graph, at most 30 ops).
"""

import torch


# TODO: this function is traced again at each of its 12 calls
def layer(x, w1, w2):
    return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2


class Stack(torch.nn.Module):
    def __init__(self, depth=12, width=32):
        super().__init__()
        self.w1 = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(width, 2 * width) / 8) for _ in range(depth)])
        self.w2 = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(2 * width, width) / 8) for _ in range(depth)])

    def forward(self, x):
        for w1, w2 in zip(self.w1, self.w2):
            x = layer(x, w1, w2)
        return x


def make_model():
    return Stack()


if __name__ == "__main__":
    from autograder.lab import tally_calls

    t = tally_calls(make_model(), [(torch.randn(4, 32),)], fullgraph=True)
    print(t, "ops per graph:", t.ops_per_graph)

# /// exercise
# format_version = 1
# title = "Trace the repeated layer once with nested_compile_region"
# syllabus = ["5.4"]
# entry = "make_model"
# factory = true
# compile = { fullgraph = true }
# starter_fails = ["subgraphs", "ops"]
# hints = [
#   "Run the file: the model's graph holds 12 inlined copies of `layer`.",
#   "The whole model must stay one compiled graph, yet `layer` is the same code each time.",
#   "torch.compiler.nested_compile_region marks a function whose traced subgraph is reused at every call (an invoke_subgraph node) (lesson section 5.4).",
#   "Put @torch.compiler.nested_compile_region on the line above `def layer`.",
# ]
#
# [[checks]]
# kind = "subgraphs"
# min = 11
# max_graphs = 1
# points = 2
#
# [[checks]]
# kind = "ops"
# max = 30
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Keep compiling the whole model, but trace its repeated layer only once.

`Stack` applies `layer` 12 times with 12 sets of weights. The grader compiles the whole model
(fullgraph=True) and calls it 3 times. Today the graph inlines `layer` 12 times. Mark `layer` as
a nested compile region, so that the graph calls one shared subgraph (at least 11
`invoke_subgraph` nodes: on 2.13 the first call is inlined; one graph, at most 30 ops).
"""

import torch


# BEGIN SOLUTION
@torch.compiler.nested_compile_region
# END SOLUTION
# BEGIN STARTER
# # TODO: this function is traced again at each of its 12 calls
# END STARTER
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


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 32, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    t = tally_calls(make_model(), [(torch.randn(4, 32),)], fullgraph=True)
    print(t, "ops per graph:", t.ops_per_graph)

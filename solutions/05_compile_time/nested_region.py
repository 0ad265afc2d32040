# /// exercise
# format_version = 1
# title = "Trace the repeated layer once while the model stays one graph"
# syllabus = ["5.4"]
# entry = "make_model"
# factory = true
# compile = { fullgraph = true }
# starter_fails = ["subgraphs", "ops"]
# hints = [
#   "Run the file: the model's graph holds 12 inlined copies of `layer`, one per call.",
#   "The whole model must stay one compiled graph (fullgraph=True), yet `layer` is the same code each time: compiling `layer` separately, or leaving it to plain Python, does not make one graph of the model.",
#   "torch.compiler.nested_compile_region marks a function whose traced subgraph Dynamo reuses at every later call with matching inputs (an invoke_subgraph node); it is reused only when the inputs match, and here the first call's input does not require grad while every later one (a layer's output) does (lesson section 5.4).",
#   "Decorate `def layer` with @torch.compiler.nested_compile_region, or wrap it once: layer = torch.compiler.nested_compile_region(layer).",
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
# max = 45
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "one_graph"
# text = "The whole model still compiles as one graph (the grader compiles it with fullgraph=True)."
# checks = ["subgraphs"]
#
# [[requirements]]
# id = "traced_once"
# text = "The graph holds `layer`'s work once, reused by its later calls (at least 11 of the 12 calls share one subgraph; at most 45 ops in the graph, where 12 inlined copies hold about 70)."
# checks = ["subgraphs", "ops"]
#
# [[requirements]]
# id = "same_model"
# text = "The model computes what it computes now."
# checks = ["correct"]
#
# [[fair]]
# name = "wrapped_once"
# why = "nested_compile_region applied by a call after the definition, not as a decorator"
#
# [[fair]]
# name = "residual_outside"
# why = "the region marks the block's branch only and the residual sum stays in forward"
#
# [[wrong]]
# name = "whole_loop_region"
# breaks = "traced_once"
# fails = ["subgraphs"]
# message = "invoke_subgraph call\\(s\\) in \\d+ graph\\(s\\); expected at least 11"
#
# [[wrong]]
# name = "compiled_layer"
# breaks = "traced_once"
# fails = ["subgraphs", "ops"]
# message = "0 invoke_subgraph call\\(s\\)|ops"
#
# [[wrong]]
# name = "disabled_layer"
# breaks = "one_graph"
# fails = ["subgraphs"]
# message = "0 invoke_subgraph call\\(s\\) in 0 graph\\(s\\)"
#
# [[wrong]]
# name = "norm_dropped"
# breaks = "same_model"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Keep compiling the whole model, but trace its repeated layer only once.

`Stack` applies `layer` 12 times with 12 sets of weights. The grader builds it with
`make_model()`, compiles the whole model with fullgraph=True and calls it 3 times. Today the
model's graph holds 12 traced copies of `layer`.
"""

import torch


# BEGIN SOLUTION
@torch.compiler.nested_compile_region
def layer(x, w1, w2):
    return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
# END SOLUTION
# BEGIN STARTER
# def layer(x, w1, w2):  # TODO: the model's graph traces this function again at each of its 12 calls
#     return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
# END STARTER
# BEGIN FAIR wrapped_once
# def layer(x, w1, w2):
#     return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
#
#
# layer = torch.compiler.nested_compile_region(layer)
# END FAIR
# BEGIN FAIR residual_outside
# @torch.compiler.nested_compile_region
# def branch(x, w1, w2):
#     return torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
#
#
# def layer(x, w1, w2):
#     return x + branch(x, w1, w2)
# END FAIR
# BEGIN WRONG whole_loop_region
# def layer(x, w1, w2):
#     return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
#
#
# @torch.compiler.nested_compile_region
# def all_layers(x, w1s, w2s):
#     for w1, w2 in zip(w1s, w2s):
#         x = layer(x, w1, w2)
#     return x
# END WRONG
# BEGIN WRONG compiled_layer
# @torch.compile
# def layer(x, w1, w2):
#     return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
# END WRONG
# BEGIN WRONG disabled_layer
# @torch.compiler.disable
# def layer(x, w1, w2):
#     return x + torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, x.shape[-1:]) @ w1) @ w2
# END WRONG
# BEGIN WRONG norm_dropped
# @torch.compiler.nested_compile_region
# def layer(x, w1, w2):
#     return x + torch.nn.functional.gelu(x @ w1) @ w2
# END WRONG


class Stack(torch.nn.Module):
    def __init__(self, depth=12, width=32):
        super().__init__()
        self.w1 = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(width, 2 * width) / 8) for _ in range(depth)])
        self.w2 = torch.nn.ParameterList([torch.nn.Parameter(torch.randn(2 * width, width) / 8) for _ in range(depth)])

    def forward(self, x):
        # BEGIN SOLUTION
        for w1, w2 in zip(self.w1, self.w2):
            x = layer(x, w1, w2)
        return x
        # END SOLUTION
        # BEGIN STARTER
        # for w1, w2 in zip(self.w1, self.w2):
        #     x = layer(x, w1, w2)
        # return x
        # END STARTER
        # BEGIN WRONG whole_loop_region
        # return all_layers(x, list(self.w1), list(self.w2))
        # END WRONG


def make_model():
    return Stack()


# BEGIN GRADER
def calls(gen):
    rows = int(torch.randint(1, 6, (1,), generator=gen))  # one batch size per grading: a new size would recompile
    return [(torch.randn(rows, 32, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    t = tally_calls(make_model(), [(torch.randn(4, 32),)], fullgraph=True)
    print(t, "ops per graph:", t.ops_per_graph)

# /// exercise
# format_version = 1
# title = "Cut the compile time of a re-ranking service's cold start"
# syllabus = ["5.5", "5.1", "5.4"]
# capstone = true
# entry = "make_model"
# factory = true
# driver = "run"
# compile = { fullgraph = true }
# starter_fails = ["recompiles", "subgraphs", "ops"]
# hints = [
#   "Measure first (lesson section 5.5): run the file. It serves three requests and prints how many graphs were compiled, the recompiles, the ops each graph holds and the time it took. Count the compiles, and compare the ops of one graph with what one block holds.",
#   "There are two costs, and each alone leaves the compile slow. One is a second compile the schedule should not need: run the file with TORCH_LOGS=recompiles and read which guard failed. The other is the size of each compile: sixteen blocks that run the same code are each traced again.",
#   "A Python float that changes from call to call is first baked into the graph as a constant, and the next value compiles the model again (lesson section 5.1). Sixteen identical blocks inside one graph can share one traced body, reused at each of their calls, without splitting the graph (lesson section 5.4).",
#   "In run: `return model(x, torch.tensor(temperature))`. And mark the block's call as a region: `@torch.compiler.nested_compile_region def residual(block, x): return x + block(x)`, then `x = residual(block, x)` in the loop of `forward`.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "subgraphs"
# min = 15
# max_graphs = 1
# points = 2
#
# [[checks]]
# kind = "ops"
# max = 60
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "compile_time"
# min_ratio = 1.7
# repeats = 3
# points = 2
#
# [[requirements]]
# id = "compile_once"
# text = "A request with a new temperature never compiles the model again, and compiling the whole schedule from cold (aot_eager) takes at least 1.7 times less time than the starting code's compile."
# checks = ["recompiles", "compile_time"]
#
# [[requirements]]
# id = "small_trace"
# text = "The model stays one graph (the grader compiles it with fullgraph=True) in which the sixteen identical blocks cost the tracing of one: at least 15 of the 16 block calls reuse one traced body, and at most 60 ops are traced over the whole schedule, where the starting code traces about 170."
# checks = ["subgraphs", "ops"]
#
# [[requirements]]
# id = "same_scores"
# text = "`run` returns the scores the starting code returns, for every request and temperature."
# checks = ["correct"]
#
# [[fair]]
# name = "wrapped_full"
# why = "the region made by wrapping the function after its definition, and the temperature a (1, 1) tensor made with torch.full that broadcasts over the scores"
#
# [[fair]]
# name = "branch_region"
# why = "the region marks the block's branch only (the residual sum stays in forward), and the temperature becomes a tensor of the input's dtype with torch.as_tensor"
#
# [[wrong]]
# name = "region_only"
# breaks = "compile_once"
# fails = ["recompiles"]
# message = "1 recompile\\(s\\) over \\d+ call\\(s\\); at most 0 allowed\\. The guard that failed first: .*temperature"
#
# [[wrong]]
# name = "tensor_only"
# breaks = "small_trace"
# fails = ["subgraphs", "ops"]
# message = "0 invoke_subgraph call\\(s\\) in 1 graph\\(s\\)|ops traced over 1 graph\\(s\\)"
#
# [[wrong]]
# name = "whole_stack_region"
# breaks = "small_trace"
# fails = ["subgraphs"]
# message = "\\d invoke_subgraph call\\(s\\) in 1 graph\\(s\\); expected at least 15"
#
# [[wrong]]
# name = "residual_lost"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make a re-ranking service's cold start compile faster.

Every time the service starts, it builds `Reranker` with `make_model()` and compiles it with
fullgraph=True (that setting stays: the model must remain one graph). Each request calls
`run(model, x, temperature)` with a batch of candidate features `x` of shape `(batch, 32)` and a
sampling temperature, a Python float that differs from request to request. The grader calls `run`
on a schedule of requests of one batch size, each with its own temperature. Compiling makes the
first requests of every start slow, and profiles show far more compile time than a model of this
size should need. You may change anything in the file except the model's weights and what it
computes.
"""

# BEGIN STARTER
# # TODO: find out where the compile time goes, and cut it.
# END STARTER

import torch

WIDTH, DEPTH = 32, 16


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(WIDTH)
        self.up = torch.nn.Linear(WIDTH, 2 * WIDTH)
        self.down = torch.nn.Linear(2 * WIDTH, WIDTH)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


# BEGIN SOLUTION
@torch.compiler.nested_compile_region
def residual(block, x):
    return x + block(x)
# END SOLUTION
# BEGIN FAIR wrapped_full
# def residual(block, x):
#     return x + block(x)
#
#
# residual = torch.compiler.nested_compile_region(residual)
# END FAIR
# BEGIN FAIR branch_region
# @torch.compiler.nested_compile_region
# def branch(block, x):
#     return block(x)
# END FAIR
# BEGIN WRONG region_only
# @torch.compiler.nested_compile_region
# def residual(block, x):
#     return x + block(x)
# END WRONG
# BEGIN WRONG whole_stack_region
# @torch.compiler.nested_compile_region
# def all_blocks(blocks, x):
#     for block in blocks:
#         x = x + block(x)
#     return x
# END WRONG
# BEGIN WRONG residual_lost
# @torch.compiler.nested_compile_region
# def residual(block, x):
#     return block(x)
# END WRONG


class Reranker(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(DEPTH))
        self.head = torch.nn.Linear(WIDTH, 8)

    # BEGIN SOLUTION
    def forward(self, x, temperature):
        for block in self.blocks:
            x = residual(block, x)
        return torch.softmax(self.head(x) / temperature, dim=-1)
    # END SOLUTION
    # BEGIN STARTER
    # def forward(self, x, temperature):
    #     for block in self.blocks:
    #         x = x + block(x)
    #     return torch.softmax(self.head(x) / temperature, dim=-1)
    # END STARTER
    # BEGIN FAIR branch_region
    # def forward(self, x, temperature):
    #     for block in self.blocks:
    #         x = x + branch(block, x)
    #     return torch.softmax(self.head(x) / temperature, dim=-1)
    # END FAIR
    # BEGIN WRONG region_only
    # def forward(self, x, temperature):
    #     for block in self.blocks:
    #         x = residual(block, x)
    #     return torch.softmax(self.head(x) / temperature, dim=-1)
    # END WRONG
    # BEGIN WRONG tensor_only
    # def forward(self, x, temperature):
    #     for block in self.blocks:
    #         x = x + block(x)
    #     return torch.softmax(self.head(x) / temperature, dim=-1)
    # END WRONG
    # BEGIN WRONG whole_stack_region
    # def forward(self, x, temperature):
    #     return torch.softmax(self.head(all_blocks(self.blocks, x)) / temperature, dim=-1)
    # END WRONG


def make_model():
    return Reranker()


def run(model, x, temperature):
    # BEGIN SOLUTION
    return model(x, torch.tensor(temperature))
    # END SOLUTION
    # BEGIN STARTER
    # return model(x, temperature)
    # END STARTER
    # BEGIN FAIR wrapped_full
    # return model(x, torch.full((1, 1), temperature))
    # END FAIR
    # BEGIN FAIR branch_region
    # return model(x, torch.as_tensor(temperature, dtype=x.dtype))
    # END FAIR
    # BEGIN WRONG region_only
    # return model(x, temperature)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Four to six requests of one batch size (1 to 8 rows, drawn per seed: a new size would be a
    recompile of its own), each with a temperature of its own between 0.25 and 4."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    count = int(torch.randint(4, 7, (1,), generator=gen))
    temperatures = (0.25 + 3.75 * torch.rand(count, generator=gen)).tolist()
    return [(torch.randn(rows, WIDTH, generator=gen), t) for t in temperatures]
# END GRADER


if __name__ == "__main__":
    import time

    from autograder.lab import tally_run

    def three_requests(compiled):
        return [run(compiled, torch.randn(4, WIDTH), temperature) for temperature in (0.7, 1.3, 2.0)]

    started = time.perf_counter()
    tally = tally_run(make_model(), three_requests, fullgraph=True, backend="aot_eager")
    print(f"{tally}; ops per graph: {tally.ops_per_graph}; {time.perf_counter() - started:.1f} s for three requests")

# /// exercise
# format_version = 1
# title = "A compiled sampler that follows the temperature"
# syllabus = ["2.3"]
# section = "2.3"
# entry = "probabilities"
# # The grader calls serve(compiled_probabilities, logits, temperature) with a new temperature each time.
# driver = "serve"
# # aot_eager, not eager: with the eager backend the Python of a nonstrict_trace function re-runs and hides the bug.
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["correct"]
# hints = [
#   "Run the file: it compiles, but after the first call the temperature no longer changes the output.",
#   "A nonstrict_trace function is traced once, with fake tensors, and the trace is kept. A tensor it reads from a global is not one of its inputs: it is baked into the graph as a constant, and Dynamo puts no guard on it. temper is not pure: not all of its data comes in through its parameters.",
#   "Lesson section 2.3: make temper pure, and keep it behind nonstrict_trace. How does the temperature reach it then? As a tensor: a Python float that reaches the compiled code is guarded on its value, and the next temperature would compile again.",
#   "`def temper(logits, temperature): return logits / temperature`, `def probabilities(logits, temperature): return torch.softmax(temper(logits, temperature), dim=-1)`, and in serve `return step(logits, TEMPERATURE)` after set_temperature.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "escape_hatch"
# name = "hatch"
# via = "nonstrict_trace"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 3
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "one_graph"
# text = "`probabilities` compiles with `fullgraph=True` into one graph that serves every temperature: no recompile."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "follows"
# text = "Each call's probabilities use the temperature `serve` was given for that call, as they do without the compiler."
# checks = ["correct"]
#
# [[requirements]]
# id = "hatch_kept"
# text = "`temper` stays behind `torch._dynamo.nonstrict_trace` (in the real code it calls a sampling library that Dynamo cannot trace)."
# checks = ["hatch"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "global_in_caller"
# why = "temper made pure, and the compiled probabilities reads the global itself: Dynamo makes a global tensor a graph input"
#
# [[fair]]
# name = "reciprocal"
# why = "the temperature passed in, and temper multiplies by its reciprocal instead of dividing"
#
# [[wrong]]
# name = "closure_hatch"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*nonstrict_trace"
#
# [[wrong]]
# name = "python_float"
# breaks = "one_graph"
# fails = ["graphs"]
# message = "graph\\(s\\) compiled over \\d+ call\\(s\\); expected exactly 1.*recompiles"
#
# [[wrong]]
# name = "half_plumbed"
# breaks = "follows"
# fails = ["correct"]
# message = "Call 2 of \\d+ .*differs from the reference"
#
# [[wrong]]
# name = "hatch_dropped"
# breaks = "hatch_kept"
# fails = ["hatch"]
# message = "no nonstrict_trace call"
#
# [[wrong]]
# name = "in_graph_opaque"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "allow_in_graph"
#
# [[wrong]]
# name = "plain_call"
# breaks = "one_graph"
# fails = ["graphs"]
# message = "0 graph\\(s\\) compiled"
# ///
"""Make the compiled sampler follow the temperature.

`probabilities` turns logits into sampling probabilities at the current temperature. `temper`
sits behind `torch._dynamo.nonstrict_trace`. The serving loop `serve` sets a new temperature before
each call. The grader compiles `probabilities` with `fullgraph=True` and the `aot_eager` backend
and calls `serve(compiled_probabilities, logits, temperature)` with a different temperature each
time. You may change `temper`, `probabilities` and `serve`.
"""

import torch

TEMPERATURE = torch.tensor(1.0)  # set by the serving loop


def set_temperature(value):
    global TEMPERATURE
    TEMPERATURE = torch.tensor(value)


# BEGIN SOLUTION
@torch._dynamo.nonstrict_trace
def temper(logits, temperature):
    return logits / temperature


def probabilities(logits, temperature):
    return torch.softmax(temper(logits, temperature), dim=-1)
# END SOLUTION
# BEGIN STARTER
# @torch._dynamo.nonstrict_trace
# def temper(logits):
#     # TODO: make the compiled probabilities follow every new temperature (serve may change too).
#     return logits / TEMPERATURE
#
#
# def probabilities(logits):
#     return torch.softmax(temper(logits), dim=-1)
# END STARTER
# BEGIN FAIR global_in_caller
# @torch._dynamo.nonstrict_trace
# def temper(logits, temperature):
#     return logits / temperature
#
#
# def probabilities(logits):
#     return torch.softmax(temper(logits, TEMPERATURE), dim=-1)
# END FAIR
# BEGIN FAIR reciprocal
# @torch._dynamo.nonstrict_trace
# def temper(logits, temperature):
#     return logits * temperature.reciprocal()
#
#
# def probabilities(logits, temperature):
#     return torch.softmax(temper(logits, temperature), dim=-1)
# END FAIR
# BEGIN WRONG closure_hatch
# def probabilities(logits, temperature):
#     @torch._dynamo.nonstrict_trace
#     def temper(values):
#         return values / temperature
#
#     return torch.softmax(temper(logits), dim=-1)
# END WRONG
# BEGIN WRONG python_float
# @torch._dynamo.nonstrict_trace
# def temper(logits, temperature):
#     return logits / temperature
#
#
# def probabilities(logits, temperature):
#     return torch.softmax(temper(logits, temperature), dim=-1)
# END WRONG
# BEGIN WRONG half_plumbed
# @torch._dynamo.nonstrict_trace
# def temper(logits):
#     return logits / TEMPERATURE
#
#
# def probabilities(logits, temperature):
#     return torch.softmax(temper(logits), dim=-1)
# END WRONG
# BEGIN WRONG hatch_dropped
# def temper(logits, temperature):
#     return logits / temperature
#
#
# def probabilities(logits, temperature):
#     return torch.softmax(temper(logits, temperature), dim=-1)
# END WRONG
# BEGIN WRONG in_graph_opaque
# @torch.compiler.allow_in_graph
# def temper(logits, temperature):
#     return logits / temperature
#
#
# def probabilities(logits, temperature):
#     return torch.softmax(temper(logits, temperature), dim=-1)
# END WRONG


def serve(step, logits, temperature):
    """The serving loop's call; `step` is the compiled probabilities."""
    set_temperature(temperature)
    # BEGIN SOLUTION
    return step(logits, TEMPERATURE)
    # END SOLUTION
    # BEGIN STARTER
    # return step(logits)
    # END STARTER
    # BEGIN FAIR global_in_caller
    # return step(logits)
    # END FAIR
    # BEGIN WRONG python_float
    # return step(logits, temperature)
    # END WRONG
    # BEGIN WRONG plain_call
    # return probabilities(logits, TEMPERATURE)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Temperatures drawn per seed, each far from the one before it (below 1, then above), and
    one of them again at the end; logits of a shape drawn per seed."""
    logits = torch.randn(int(torch.randint(1, 5, (1,), generator=gen)), 6, generator=gen)
    low = (0.2 + 0.5 * torch.rand(2, generator=gen)).tolist()
    high = (1.5 + 3.0 * torch.rand(1, generator=gen)).tolist()
    return [(logits, t) for t in (1.0, low[0], high[0], low[1], low[0])]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(probabilities, fullgraph=True, backend="aot_eager")
    logits = torch.tensor([[2.0, 1.0, 0.0]])
    for t in (1.0, 0.25, 4.0):
        print(f"temperature {t}: compiled {serve(compiled, logits, t)}  eager {serve(probabilities, logits, t)}")

# /// exercise
# format_version = 1
# title = "The stale temperature: a global read behind nonstrict_trace"
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
#   "A nonstrict_trace function is traced once, with fake tensors. A tensor it reads from a global is not an input: it is baked into the graph as a constant, and Dynamo puts no guard on it. temper is not pure: not all of its data comes in through its parameters.",
#   "Lesson section 2.3: make temper pure. Pass the temperature in as an argument, from serve through probabilities to temper. Keep temper behind nonstrict_trace.",
#   "`def temper(logits, temperature): return logits / temperature`, `def probabilities(logits, temperature): return torch.softmax(temper(logits, temperature), dim=-1)`, and in serve `return step(logits, TEMPERATURE)` after set_temperature.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "graphs"
# max = 2
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "escape_hatch"
# name = "hatch"
# via = "nonstrict_trace"
# ops = ["aten.div"]
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "correct"
# points = 3
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Make the compiled sampler follow the temperature.

`probabilities` turns logits into sampling probabilities at the current temperature. `temper`
sits behind `torch._dynamo.nonstrict_trace` (in the real code it calls a sampling library that
Dynamo cannot trace; keep it there). The serving loop `serve` sets a new temperature before each
call. The grader compiles `probabilities` with `fullgraph=True` and the `aot_eager` backend and
calls `serve(compiled_probabilities, logits, temperature)` with a different temperature each time.
The compiled code must follow every change, as the uncompiled code does.
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
#     return logits / TEMPERATURE  # TODO: a global read here is baked in as a constant; pass it in
#
#
# def probabilities(logits):
#     return torch.softmax(temper(logits), dim=-1)
# END STARTER


def serve(step, logits, temperature):
    """The serving loop's call; `step` is the compiled probabilities."""
    set_temperature(temperature)
    # BEGIN SOLUTION
    return step(logits, TEMPERATURE)
    # END SOLUTION
    # BEGIN STARTER
    # return step(logits)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    logits = torch.randn(2, 6, generator=gen)
    return [(logits, t) for t in (1.0, 0.25, 4.0, 0.25)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(probabilities, fullgraph=True, backend="aot_eager")
    logits = torch.tensor([[2.0, 1.0, 0.0]])
    for t in (1.0, 0.25, 4.0):
        print(f"temperature {t}: compiled {serve(compiled, logits, t)}  eager {serve(probabilities, logits, t)}")

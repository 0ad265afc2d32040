# Exercise nonstrict_global: A compiled sampler that follows the temperature
# Edit this file, then check it with:  ./course check nonstrict_global
# Stuck? ./course hint nonstrict_global   Start over: ./course reset nonstrict_global
"""Make the compiled sampler follow the temperature.

`probabilities` turns logits into sampling probabilities at the current temperature. `temper`
sits behind `torch._dynamo.nonstrict_trace`. The serving loop `serve` sets a new temperature before
each call. The grader compiles `probabilities` with `fullgraph=True` and the `aot_eager` backend
and calls `serve(compiled_probabilities, logits, temperature)` with a different temperature each
time. You may change `temper`, `probabilities` and `serve`.

What the grader checks:
- `probabilities` compiles with `fullgraph=True` into one graph that serves every temperature: no recompile.
- Each call's probabilities use the temperature `serve` was given for that call, as they do without the compiler.
- `temper` stays behind `torch._dynamo.nonstrict_trace` (in the real code it calls a sampling library that Dynamo cannot trace).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch

TEMPERATURE = torch.tensor(1.0)  # set by the serving loop


def set_temperature(value):
    global TEMPERATURE
    TEMPERATURE = torch.tensor(value)


@torch._dynamo.nonstrict_trace
def temper(logits):
    # TODO: make the compiled probabilities follow every new temperature (serve may change too).
    return logits / TEMPERATURE


def probabilities(logits):
    return torch.softmax(temper(logits), dim=-1)


def serve(step, logits, temperature):
    """The serving loop's call; `step` is the compiled probabilities."""
    set_temperature(temperature)
    return step(logits)


if __name__ == "__main__":
    compiled = torch.compile(probabilities, fullgraph=True, backend="aot_eager")
    logits = torch.tensor([[2.0, 1.0, 0.0]])
    for t in (1.0, 0.25, 4.0):
        print(f"temperature {t}: compiled {serve(compiled, logits, t)}  eager {serve(probabilities, logits, t)}")

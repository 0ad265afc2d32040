# Exercise nonstrict_global: The stale temperature: a global read behind nonstrict_trace
# Edit this file, then check it with:  ./course check nonstrict_global
# Stuck? ./course hint nonstrict_global   Start over: ./course reset nonstrict_global
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


@torch._dynamo.nonstrict_trace
def temper(logits):
    return logits / TEMPERATURE  # TODO: a global read here is baked in as a constant; pass it in


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

# Exercise specialize_temperature: A Python float is a constant to the tracer
# Edit this file, then check it with:  ./course check specialize_temperature
# Stuck? ./course hint specialize_temperature   Start over: ./course reset specialize_temperature
"""Make the traced `sharpen` follow the temperature.

`sample_probs(logits, temperature)` turns logits into probabilities with `sharpen`, which is
traced non-strictly once and replayed as a graph for every later call. The temperature arrives
as a Python float. Non-strict tracing bakes a Python number into the graph as a constant and
records no check on it, so every later temperature is ignored without any error.

The grader traces `sharpen` on the first call, then calls `sample_probs` with other temperatures
and compares with the program run eagerly. Change `sample_probs` (the one place that runs as
plain Python on every call) so that the temperature reaches `sharpen` as a graph input.
"""

import torch


def sharpen(logits, temperature):
    """Softmax at a temperature. Traced once, non-strictly."""
    return torch.softmax(logits / temperature, dim=-1)


def sample_probs(logits, temperature):
    return sharpen(logits, temperature)  # TODO: a Python float becomes a constant in the traced graph


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_sharpen, traced = sharpen, []

    def sharpen_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            traced.append(make_fx(eager_sharpen, tracing_mode="fake")(*args))
            print(traced[0].code)
        return traced[0](*args)

    logits = torch.tensor([[2.0, 1.0, 0.0]])
    for temperature in (1.0, 0.25, 4.0):
        sharpen = eager_sharpen
        eager = sample_probs(logits, temperature)
        sharpen = sharpen_traced_once
        replayed = sample_probs(logits, temperature)
        print(f"T={temperature}: eager {eager[0].tolist()}  traced {replayed[0].tolist()}")

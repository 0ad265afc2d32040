# Exercise specialize_temperature: Sample at the temperature each call asks for
# Edit this file, then check it with:  ./course check specialize_temperature
# Stuck? ./course hint specialize_temperature   Start over: ./course reset specialize_temperature
"""Make the traced `sharpen` follow the temperature of every call.

`sample_probs(logits, temperature)` turns logits into probabilities with `sharpen`, which is
traced non-strictly once and replayed as a graph for every later call. The temperature arrives
as a Python float. Traced, every call gets the probabilities of the first call's temperature,
without any error.

The grader traces `sharpen` on the first call, then calls `sample_probs` with other temperatures
and compares with the program run eagerly. `sample_probs` is the one place that runs as plain
Python on every call.

What the grader checks:
- Every call of `sample_probs` returns `softmax(logits / temperature)` over the last dimension at that call's temperature (any temperature from 0.25 to 4, as it is), computed by the graph traced from `sharpen`.
- On every call the temperature reaches `sharpen` as a graph input: its graph reads a tensor that holds the temperature, not a number fixed while tracing.
"""

import torch


def sharpen(logits, temperature):
    """Softmax at a temperature. Traced once, non-strictly."""
    return torch.softmax(logits / temperature, dim=-1)


def sample_probs(logits, temperature):
    # TODO: traced, every temperature gives the first one's probabilities. Make each call's count.
    return sharpen(logits, temperature)


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

# /// exercise
# format_version = 1
# title = "A Python float is a constant to the tracer"
# syllabus = ["3.2"]
# entry = "sample_probs"
# starter_fails = ["follows_temperature"]
# hints = [
#   "Run the file: the traced graph gives the same probabilities whatever temperature you pass.",
#   "Print the traced graph's code: the temperature of the first call is written into the division as a number. Non-strict tracing keeps Python scalars as constants and records no guard on them.",
#   "Only tensors become graph inputs. Pass the temperature to `sharpen` as a tensor (lesson section 3.2).",
#   "In `sample_probs`: return sharpen(logits, torch.tensor(temperature)).",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "follows_temperature"
# helper = "sharpen"
# ops = ["softmax"]
# points = 4
# ///
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
    # BEGIN SOLUTION
    return sharpen(logits, torch.tensor(temperature))
    # END SOLUTION
    # BEGIN STARTER
    # return sharpen(logits, temperature)  # TODO: a Python float becomes a constant in the traced graph
    # END STARTER


# BEGIN GRADER
def calls(gen):
    temperatures = [0.5 + 2.5 * torch.rand((), generator=gen).item() for _ in range(5)]
    return [(torch.randn(3, 10, generator=gen) * 2, t) for t in temperatures]
# END GRADER


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

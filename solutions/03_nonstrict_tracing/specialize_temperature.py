# /// exercise
# format_version = 1
# title = "Sample at the temperature each call asks for"
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
# points = 3
#
# [[checks]]
# kind = "nonstrict"
# name = "temperature_reaches"
# helper = "sharpen"
# observe = []
# reaches = "temperature_of"
# points = 1
#
# [[requirements]]
# id = "follows_temperature"
# text = "Every call of `sample_probs` returns `softmax(logits / temperature)` over the last dimension at that call's temperature (any temperature from 0.25 to 4, as it is), computed by the graph traced from `sharpen`."
# checks = ["follows_temperature"]
#
# [[requirements]]
# id = "temperature_input"
# text = "On every call the temperature reaches `sharpen` as a graph input: its graph reads a tensor that holds the temperature, not a number fixed while tracing."
# checks = ["temperature_reaches"]
#
# [[fair]]
# name = "new_tensor"
# why = "the temperature made a tensor of the logits' dtype with logits.new_tensor"
#
# [[fair]]
# name = "broadcast_column"
# why = "the temperature as a one-element tensor that broadcasts over the logits"
#
# [[wrong]]
# name = "tensor_inside"
# breaks = "follows_temperature"
# fails = ["follows_temperature"]
# message = "Call 2 of \\d+: output differs from the reference"
#
# [[fair]]
# name = "refilled_tensor"
# why = "one tensor made on the first call and refilled in place with each call's temperature"
#
# [[wrong]]
# name = "divided_before"
# breaks = "temperature_input"
# fails = ["temperature_reaches"]
# message = "Call 1 of \\d+: none of the inputs that the graph traced from `sharpen` reads carries the temperature of this call"
#
# [[wrong]]
# name = "global_refilled"
# breaks = "temperature_input"
# fails = ["temperature_reaches"]
# message = "Call 1 of \\d+: none of the inputs that the graph traced from `sharpen` reads carries the temperature of this call"
#
# [[wrong]]
# name = "made_once"
# breaks = "follows_temperature"
# fails = ["follows_temperature"]
# message = "Call 2 of \\d+: output differs from the reference"
#
# [[wrong]]
# name = "clamped_low"
# breaks = "follows_temperature"
# fails = ["follows_temperature"]
# message = "Call \\d of 6: output differs from the reference"
# ///
"""Make the traced `sharpen` follow the temperature of every call.

`sample_probs(logits, temperature)` turns logits into probabilities with `sharpen`, which is
traced non-strictly once and replayed as a graph for every later call. The temperature arrives
as a Python float. Traced, every call gets the probabilities of the first call's temperature,
without any error.

The grader traces `sharpen` on the first call, then calls `sample_probs` with other temperatures
and compares with the program run eagerly. `sample_probs` is the one place that runs as plain
Python on every call.
"""

import torch


def sharpen(logits, temperature):
    """Softmax at a temperature. Traced once, non-strictly."""
    # BEGIN SOLUTION
    return torch.softmax(logits / temperature, dim=-1)
    # END SOLUTION
    # BEGIN STARTER
    # return torch.softmax(logits / temperature, dim=-1)
    # END STARTER
    # BEGIN WRONG tensor_inside
    # return torch.softmax(logits / torch.tensor(temperature), dim=-1)  # a tensor, made while tracing
    # END WRONG
    # BEGIN WRONG global_refilled
    # return torch.softmax(logits / TEMPERATURE, dim=-1)
    # END WRONG


# BEGIN FAIR refilled_tensor
# _TEMPERATURE = []
# END FAIR
# BEGIN WRONG made_once
# _TEMPERATURE = []
# END WRONG
# BEGIN WRONG global_refilled
# TEMPERATURE = torch.ones(())  # one tensor for the whole program, refilled before each call
# END WRONG


def sample_probs(logits, temperature):
    # BEGIN SOLUTION
    return sharpen(logits, torch.tensor(temperature))
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: traced, every temperature gives the first one's probabilities. Make each call's count.
    # return sharpen(logits, temperature)
    # END STARTER
    # BEGIN FAIR new_tensor
    # return sharpen(logits, logits.new_tensor(temperature))
    # END FAIR
    # BEGIN FAIR broadcast_column
    # return sharpen(logits, torch.full((1,), temperature))
    # END FAIR
    # BEGIN WRONG tensor_inside
    # return sharpen(logits, temperature)
    # END WRONG
    # BEGIN FAIR refilled_tensor
    # if not _TEMPERATURE:
    #     _TEMPERATURE.append(torch.empty(()))
    # return sharpen(logits, _TEMPERATURE[0].fill_(temperature))
    # END FAIR
    # BEGIN WRONG divided_before
    # return sharpen(logits / temperature, 1.0)  # the division done here, on every call
    # END WRONG
    # BEGIN WRONG global_refilled
    # TEMPERATURE.fill_(temperature)
    # return sharpen(logits, temperature)
    # END WRONG
    # BEGIN WRONG made_once
    # if not _TEMPERATURE:
    #     _TEMPERATURE.append(torch.tensor(temperature))  # made once, not one per call
    # return sharpen(logits, _TEMPERATURE[0])
    # END WRONG
    # BEGIN WRONG clamped_low
    # return sharpen(logits, torch.tensor(max(temperature, 0.3)))  # guard against tiny temperatures
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Six calls, each at its own temperature (0.25 to 4, drawn per seed, one of them below 1 and
    one above 2, so that a temperature baked in on the first call is wrong for the others), and
    one of them the range's lowest, exactly 0.25, so that a floor put under the temperature shows."""
    temperatures = [0.25, 0.3 + 0.45 * torch.rand((), generator=gen).item(), 2.0 + 2.0 * torch.rand((), generator=gen).item()]
    temperatures += [0.25 + 3.75 * torch.rand((), generator=gen).item() for _ in range(3)]
    order = torch.randperm(6, generator=gen).tolist()
    rows = int(torch.randint(1, 6, (1,), generator=gen))
    return [(torch.randn(rows, 10, generator=gen) * 2, temperatures[i]) for i in order]


def temperature_of(module, args):
    """The temperature of this call."""
    return args[1]
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

# /// exercise
# format_version = 1
# title = "Serve sequences of every length from compiled code"
# syllabus = ["2.5.5.4"]
# entry = "rnn"
# # The grader calls run(compiled_rnn, x) for each sequence: the server around the compiled model.
# driver = "run"
# starter_fails = ["compiled_calls"]
# hints = [
#   "Run the file: every call returns the right states and nothing fails, but the report says only some calls ran compiled code, and Dynamo warns that `rnn` hit config.recompile_limit (8).",
#   "The loop in `rnn` runs once per step, and Dynamo unrolls it while tracing, so each number of steps is a graph of its own, whatever dynamic= says (a symbolic length cannot drive a Python loop). Dynamo keeps at most 8 entries per function. A call that matches one of them still runs compiled code; only a call that needs a ninth runs eagerly (lesson section 2.5.5.4).",
#   "So the number of entries is the budget, not the number of calls: make the compiled `rnn` see only a few lengths, whatever lengths arrive. The recurrence is causal: the state at step t depends on steps 0 to t only, so steps appended at the end change nothing before them.",
#   "In run: pad the steps up to the next power of two (`padded = 1 << (steps - 1).bit_length()`, then `torch.nn.functional.pad(x, (0, 0, 0, padded - steps))`), call `step` on the padded sequence and return `[:, :steps]` of its result. Sequences of 1 to 64 steps then need at most 7 entries. Padding to a multiple of a fixed number is not enough: every multiple is an entry of its own, and long sequences pass the limit again.",
# ]
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[requirements]]
# id = "all_compiled"
# text = "Every call of `run` runs compiled code, whatever the number of steps of its sequence (from 1 up)."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_states"
# text = "`run` returns what it returns now: the state after every step of the sequence it was given, shape `(batch, steps, 8)`."
# checks = ["correct"]
#
# [[fair]]
# name = "powers_of_two"
# why = "pads to the next power of two with a zero tensor and torch.cat instead of F.pad"
#
# [[fair]]
# name = "chunks"
# why = "rnn takes the starting state; run feeds the sequence in chunks of 4 steps and carries the state, so only chunk lengths 1 to 4 are ever compiled"
#
# [[wrong]]
# name = "even_lengths"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "multiple_of_4"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "marked_dynamic"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "reset_between_requests"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "reset Dynamo during the calls"
#
# [[wrong]]
# name = "token_call"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "did not come from that call"
#
# [[wrong]]
# name = "plain_call"
# breaks = "all_compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "padded_in_front"
# breaks = "same_states"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "longest_shown"
# breaks = "same_states"
# fails = ["correct"]
# message = "has shape|did not return"
# ///
"""Serve a recurrent model compiled, for sequences of any length.

`rnn(x)` runs a recurrent cell over the steps of a batch of sequences `x`, of shape
`(batch, steps, 8)`, and returns the state after every step. `run(step, x)` is the server around
it: the grader compiles `rnn` (default settings) and calls `run(compiled_rnn, x)` once per
sequence, with sequences of many lengths, in an order of its own, and compares what `run`
returns with the model run without the compiler. Nothing fails; but beyond a point most
calls are served eagerly, without a word. The recompile limit is the team's setting and stays
as it is; the model may change, as long as it computes the same states.
"""

import torch
import torch.nn.functional as F

_weights = torch.Generator().manual_seed(0)
W = torch.randn(8, 8, generator=_weights) / 3
U = torch.randn(8, 8, generator=_weights) / 3
B = torch.randn(8, generator=_weights) / 2


def rnn(x):
    """The state after every step of `x` (batch, steps, 8), starting from zeros."""
    inputs = x @ W + B
    h = x.new_zeros(x.shape[0], 8)
    states = []
    for t in range(x.shape[1]):
        h = torch.tanh(inputs[:, t] + h @ U)
        states.append(h)
    return torch.stack(states, dim=1)


# BEGIN FAIR chunks
# def rnn(x, h):
#     """The states of `x`, starting from the state `h`; returns (states, last state)."""
#     inputs = x @ W + B
#     states = []
#     for t in range(x.shape[1]):
#         h = torch.tanh(inputs[:, t] + h @ U)
#         states.append(h)
#     return torch.stack(states, dim=1), h
# END FAIR


def run(step, x):
    """The server: `step` is the compiled rnn; returns the state after every step of `x`."""
    # BEGIN SOLUTION
    steps = x.shape[1]
    padded = 1 << (steps - 1).bit_length()
    return step(F.pad(x, (0, 0, 0, padded - steps)))[:, :steps]
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: beyond a point most calls run eagerly; find out why, and serve every call compiled.
    # return step(x)
    # END STARTER
    # BEGIN WRONG token_call
    # step(x[:, :4])  # the compiled model sees one length only, and the work is done eagerly
    # return rnn(x)
    # END WRONG
    # BEGIN WRONG reset_between_requests
    # states = step(x)
    # torch._dynamo.reset()  # an empty cache for every request: the limit is never reached
    # return states
    # END WRONG
    # BEGIN FAIR powers_of_two
    # steps = x.shape[1]
    # padded = 1 << (steps - 1).bit_length()
    # tail = x.new_zeros(x.shape[0], padded - steps, x.shape[2])
    # return step(torch.cat([x, tail], dim=1))[:, :steps]
    # END FAIR
    # BEGIN FAIR chunks
    # states, h = [], x.new_zeros(x.shape[0], 8)
    # for start in range(0, x.shape[1], 4):
    #     chunk, h = step(x[:, start:start + 4], h)
    #     states.append(chunk)
    # return torch.cat(states, dim=1)
    # END FAIR
    # BEGIN WRONG even_lengths
    # steps = x.shape[1]
    # return step(F.pad(x, (0, 0, 0, steps % 2)))[:, :steps]
    # END WRONG
    # BEGIN WRONG marked_dynamic
    # torch._dynamo.mark_dynamic(x, 1)
    # return step(x)
    # END WRONG
    # BEGIN WRONG plain_call
    # return rnn(x)
    # END WRONG
    # BEGIN WRONG padded_in_front
    # steps = x.shape[1]
    # padded = -(-steps // 4) * 4
    # return step(F.pad(x, (0, 0, padded - steps, 0)))[:, padded - steps:]
    # END WRONG
    # BEGIN WRONG multiple_of_4
    # steps = x.shape[1]
    # padded = -(-steps // 4) * 4  # round up to a multiple of 4: few shapes to compile
    # x = F.pad(x, (0, 0, 0, padded - steps))
    # return step(x)[:, :steps]
    # END WRONG
    # BEGIN WRONG longest_shown
    # steps = x.shape[1]
    # return step(F.pad(x, (0, 0, 0, 12 - steps)))[:, :steps]
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Sequences of nine different lengths from 1 to 36 steps, one from each group of four
    (1-4, 5-8, ..., 33-36), so that the lengths as they come, the lengths rounded up to an even
    number, and the lengths rounded up to a multiple of 4 each need more entries than the limit
    keeps. The lengths past 12 are longer than any the file's demo shows. The order, the length
    within each group and the batch size (one row on some seeds) are drawn per seed; then two
    repeats of lengths seen before."""
    batch = int(torch.randint(1, 4, (1,), generator=gen))
    lengths = [4 * group + 1 + int(torch.randint(4, (1,), generator=gen)) for group in range(9)]
    lengths = [lengths[i] for i in torch.randperm(9, generator=gen).tolist()]
    lengths += [lengths[0], lengths[-1]]
    return [(torch.randn(batch, steps, 8, generator=gen),) for steps in lengths]
# END GRADER


if __name__ == "__main__":
    import logging

    from autograder.lab import tally_run

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    sequences = [torch.randn(2, steps, 8) for steps in (3, 7, 1, 12, 5, 9, 2, 11, 6, 10, 4, 8, 3, 7)]
    # backend="eager" runs the captured graphs as they are, without Inductor's compile time: the
    # graphs, guards and recompiles are Dynamo's (Inductor may add a few guards of its own).
    tally = tally_run(rnn, lambda compiled: [run(compiled, x) for x in sequences], backend="eager")
    print(tally)

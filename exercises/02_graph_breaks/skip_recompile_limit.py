# Exercise skip_recompile_limit: Serve sequences of every length from compiled code
# Edit this file, then check it with:  ./course check skip_recompile_limit
# Stuck? ./course hint skip_recompile_limit   Start over: ./course reset skip_recompile_limit
"""Serve a recurrent model compiled, for sequences of any length.

`rnn(x)` runs a recurrent cell over the steps of a batch of sequences `x`, of shape
`(batch, steps, 8)`, and returns the state after every step. `run(step, x)` is the server around
it: the grader compiles `rnn` (default settings) and calls `run(compiled_rnn, x)` once per
sequence, with sequences of many lengths, in an order of its own, and compares what `run`
returns with the model run without the compiler. Nothing fails; but beyond a point most
calls are served eagerly, without a word. The recompile limit is the team's setting and stays
as it is; the model may change, as long as it computes the same states.

What the grader checks:
- Every call of `run` runs compiled code, whatever the number of steps of its sequence (from 1 up).
- `run` returns what it returns now: the state after every step of the sequence it was given, shape `(batch, steps, 8)`.
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


def run(step, x):
    """The server: `step` is the compiled rnn; returns the state after every step of `x`."""
    # TODO: beyond a point most calls run eagerly; find out why, and serve every call compiled.
    return step(x)


if __name__ == "__main__":
    import logging

    from autograder.lab import tally_run

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    sequences = [torch.randn(2, steps, 8) for steps in (3, 7, 1, 12, 5, 9, 2, 11, 6, 10, 4, 8, 3, 7)]
    # backend="eager" runs the captured graphs as they are, without Inductor's compile time: the
    # graphs, guards and recompiles are Dynamo's (Inductor may add a few guards of its own).
    tally = tally_run(rnn, lambda compiled: [run(compiled, x) for x in sequences], backend="eager")
    print(tally)

# Exercise skip_loop_print: A print inside a loop: Dynamo skips the whole function
# Edit this file, then check it with:  ./course check skip_loop_print
# Stuck? ./course hint skip_loop_print   Start over: ./course reset skip_loop_print
"""Compile a loop that prints its progress.

`rollout` applies a recurrent update `STEPS` times and prints the norm of the state after every
step. The grader compiles it with the default `fullgraph=False` and calls
`run(compiled_rollout, x, w)`. Nothing fails, yet nothing is compiled: Dynamo skips the whole
function. Make `rollout` compile (the grader fails any frame Dynamo skips, and looks for the
update's matmul and tanh in the graphs), while every call still prints exactly the lines it
prints now and returns the same state.
"""

import torch

STEPS = 4


def rollout(x, w):
    for t in range(STEPS):
        x = torch.tanh(x @ w) + x
        print(f"step {t}: state norm {x.norm():.3f}")  # TODO: a break inside a loop: Dynamo skips the whole function
    return x


def run(step, x, w):
    """The eager caller; `step` is the compiled rollout."""
    return step(x, w)


if __name__ == "__main__":
    from autograder.lab import tally_run

    x, w = torch.randn(2, 8), torch.randn(8, 8) / 3
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_run(rollout, lambda compiled: run(compiled, x, w), backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

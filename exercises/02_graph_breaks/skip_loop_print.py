# Exercise skip_loop_print: A recurrent rollout that reports every step, compiled
# Edit this file, then check it with:  ./course check skip_loop_print
# Stuck? ./course hint skip_loop_print   Start over: ./course reset skip_loop_print
"""Compile a recurrent rollout that prints its progress.

`rollout` applies a recurrent update `STEPS` times and prints the norm of the state after every
step. The grader compiles it with the default `fullgraph=False` and calls
`run(compiled_rollout, x, w)` on states of its own; `run` is eager code, and yours to change too.
Nothing fails, yet nothing of `rollout` is compiled.

What the grader checks:
- `rollout` compiles: no frame of it is skipped, and its update (the matmul and the tanh) runs inside a graph.
- Every call of `run` prints what it prints now: one line per step, `step T: state norm N`, with N to three decimals.
- `run` returns the state after the last step, as now.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance.
"""

import torch

STEPS = 4


def rollout(x, w):
    # TODO: Dynamo gives up on this whole function; find out why, and make it compile.
    for t in range(STEPS):
        x = torch.tanh(x @ w) + x
        print(f"step {t}: state norm {x.norm():.3f}")
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

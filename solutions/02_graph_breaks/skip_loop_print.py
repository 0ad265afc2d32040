# /// exercise
# format_version = 1
# title = "A print inside a loop: Dynamo skips the whole function"
# syllabus = ["2.5.5.1"]
# entry = "rollout"
# # The grader calls run(compiled_rollout, x, w): your eager code around the compiled function.
# driver = "run"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: it prints every step and nothing fails, but the report says 0 graphs, and `rollout` is in the list of skipped frames. Nothing of it was compiled.",
#   "A graph break inside a for or while loop cannot be resumed: Dynamo does not split a loop. It gives up on the whole frame and runs all of it eagerly, without any error under fullgraph=False (lesson section 2.5.5.1).",
#   "Take the break out of the loop. Inside the loop, collect what the message needs as tensors; print after the compiled call, in `run`, which is eager. The lines must be the same as now.",
#   "In rollout: `norms.append(x.norm())` in the loop and `return x, torch.stack(norms)`; in run: `x, norms = step(x, w)`, then print one line per step with `norms[t]` formatted as now, and return x.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["tanh", "matmul"]
# points = 2
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Failed to trace builtin operator"]
# points = 1
#
# [[checks]]
# kind = "output"
# name = "progress"
# stream = "stdout"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
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


# BEGIN SOLUTION
def rollout(x, w):
    norms = []
    for _ in range(STEPS):
        x = torch.tanh(x @ w) + x
        norms.append(x.norm())
    return x, torch.stack(norms)


def run(step, x, w):
    """The eager caller; `step` is the compiled rollout."""
    x, norms = step(x, w)
    for t in range(STEPS):
        print(f"step {t}: state norm {norms[t]:.3f}")
    return x
# END SOLUTION
# BEGIN STARTER
# def rollout(x, w):
#     for t in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         print(f"step {t}: state norm {x.norm():.3f}")  # TODO: a break inside a loop: Dynamo skips the whole function
#     return x
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     return step(x, w)
# END STARTER


# BEGIN GRADER
def calls(gen):
    w = torch.randn(8, 8, generator=gen) / 3
    return [(torch.randn(2, 8, generator=gen), w) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    x, w = torch.randn(2, 8), torch.randn(8, 8) / 3
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_run(rollout, lambda compiled: run(compiled, x, w), backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

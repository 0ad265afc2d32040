# /// exercise
# format_version = 1
# title = "A recurrent rollout that reports every step, compiled"
# syllabus = ["2.5.5.1"]
# entry = "rollout"
# # The grader calls run(compiled_rollout, x, w): your eager code around the compiled function.
# driver = "run"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: it prints every step and nothing fails, but the report says 0 graphs, and `rollout` is in the list of skipped frames. Nothing of it was compiled.",
#   "A graph break inside a for or while loop cannot be resumed: Dynamo does not split a loop. It gives up on the whole frame and runs all of it eagerly, without any error under fullgraph=False (lesson section 2.5.5.1). Which line of the loop breaks?",
#   "Take the break out of the loop. Inside the loop, keep what the message needs as tensors, not as Python numbers (`.item()` or a float is a break too); print after the compiled call, in `run`, which is eager. The lines must be the same as now.",
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
# kind = "output"
# name = "progress"
# stream = "stdout"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "compiles"
# text = "`rollout` compiles: no frame of it is skipped, and its update (the matmul and the tanh) runs inside a graph."
# checks = ["skips"]
#
# [[requirements]]
# id = "same_progress"
# text = "Every call of `run` prints what it prints now: one line per step, `step T: state norm N`, with N to three decimals."
# checks = ["progress"]
#
# [[requirements]]
# id = "same_state"
# text = "`run` returns the state after the last step, as now."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "states_returned"
# why = "rollout returns every step's state, stacked, and run computes the norms itself"
#
# [[fair]]
# name = "norms_as_floats"
# why = "rollout returns the list of norm tensors; run turns them into floats with tolist() and formats those"
#
# [[wrong]]
# name = "item_in_loop"
# breaks = "compiles"
# fails = ["skips"]
# message = "Dynamo skipped the frame of `rollout`.*loop"
#
# [[wrong]]
# name = "plain_call"
# breaks = "compiles"
# fails = ["skips"]
# message = "No graph holds tanh"
#
# [[wrong]]
# name = "print_loop_after"
# breaks = "compiles"
# fails = ["skips"]
# message = "Dynamo skipped the (frame|rest) of `rollout`"
#
# [[wrong]]
# name = "last_step_only"
# breaks = "same_progress"
# fails = ["progress"]
# message = "printed \\['step \\d: state norm"
#
# [[wrong]]
# name = "returns_both"
# breaks = "same_state"
# fails = ["correct"]
# message = "should be a tensor"
#
# [[wrong]]
# name = "disabled_report"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Compile a recurrent rollout that prints its progress.

`rollout` applies a recurrent update `STEPS` times and prints the norm of the state after every
step. The grader compiles it with the default `fullgraph=False` and calls
`run(compiled_rollout, x, w)` on states of its own; `run` is eager code, and yours to change too.
Nothing fails, yet nothing of `rollout` is compiled.
"""

import torch

STEPS = 4


# BEGIN WRONG disabled_report
# @torch.compiler.disable
# def report(t, x):
#     print(f"step {t}: state norm {x.norm():.3f}")
#
#
# END WRONG
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
#     # TODO: Dynamo gives up on this whole function; find out why, and make it compile.
#     for t in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         print(f"step {t}: state norm {x.norm():.3f}")
#     return x
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     return step(x, w)
# END STARTER
# BEGIN FAIR states_returned
# def rollout(x, w):
#     states = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         states.append(x)
#     return torch.stack(states)
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     states = step(x, w)
#     for t, state in enumerate(states):
#         print(f"step {t}: state norm {state.norm():.3f}")
#     return states[-1]
# END FAIR
# BEGIN FAIR norms_as_floats
# def rollout(x, w):
#     norms = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         norms.append(x.norm())
#     return x, norms
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     x, norms = step(x, w)
#     for t, norm in enumerate(torch.stack(norms).tolist()):
#         print(f"step {t}: state norm {norm:.3f}")
#     return x
# END FAIR
# BEGIN WRONG item_in_loop
# def rollout(x, w):
#     norms = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         norms.append(x.norm().item())
#     return x, norms
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     x, norms = step(x, w)
#     for t in range(STEPS):
#         print(f"step {t}: state norm {norms[t]:.3f}")
#     return x
# END WRONG
# BEGIN WRONG plain_call
# def rollout(x, w):
#     norms = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         norms.append(x.norm())
#     return x, torch.stack(norms)
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     x, norms = rollout(x, w)
#     for t in range(STEPS):
#         print(f"step {t}: state norm {norms[t]:.3f}")
#     return x
# END WRONG
# BEGIN WRONG print_loop_after
# def rollout(x, w):
#     norms = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         norms.append(x.norm())
#     for t in range(STEPS):
#         print(f"step {t}: state norm {norms[t]:.3f}")
#     return x
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     return step(x, w)
# END WRONG
# BEGIN WRONG last_step_only
# def rollout(x, w):
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#     return x
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     x = step(x, w)
#     print(f"step {STEPS - 1}: state norm {x.norm():.3f}")
#     return x
# END WRONG
# BEGIN WRONG returns_both
# def rollout(x, w):
#     norms = []
#     for _ in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         norms.append(x.norm())
#     return x, torch.stack(norms)
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     x, norms = step(x, w)
#     for t in range(STEPS):
#         print(f"step {t}: state norm {norms[t]:.3f}")
#     return x, norms
# END WRONG
# BEGIN WRONG disabled_report
# def rollout(x, w):
#     for t in range(STEPS):
#         x = torch.tanh(x @ w) + x
#         report(t, x)
#     return x
#
#
# def run(step, x, w):
#     """The eager caller; `step` is the compiled rollout."""
#     return step(x, w)
# END WRONG


# BEGIN GRADER
def calls(gen):
    """Three states of a batch size drawn per seed (one row on some seeds), the last one all
    zeros (its first step is tanh(0) + 0: the norm 0.000 is printed as it is)."""
    w = torch.randn(8, 8, generator=gen) / 3
    rows = int(torch.randint(1, 4, (1,), generator=gen))
    return [(torch.randn(rows, 8, generator=gen), w), (torch.randn(rows, 8, generator=gen), w), (torch.zeros(rows, 8), w)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    x, w = torch.randn(2, 8), torch.randn(8, 8) / 3
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_run(rollout, lambda compiled: run(compiled, x, w), backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

# /// exercise
# format_version = 1
# title = "A forward pass that compiles around code that never will"
# syllabus = ["2.5.5.6", "2.5.5.1", "2.5.5.3"]
# section = "2.5.5.6"
# entry = "forward"
# starter_fails = ["skips"]
# hints = [
#   "Run the file and read the graph-break log it prints: at some break Dynamo says it cannot resume, compiles `forward` only up to the last point it could resume from, and runs the rest of it eagerly (the final projection among it). Fix that cause, run again, and read the log again.",
#   "There are two causes, and fixing either alone still leaves part of `forward` eager. Both are breaks Dynamo cannot resume from: one inside a `try` block (lesson section 2.5.5.3), one inside a loop (2.5.5.1). A break in a function called from there counts as a break there. Neither break can be removed: the calibration and the monitors are other teams' code, the fallback must stay, and the list of monitors is whatever the caller passes.",
#   "Lesson section 2.5.5.6: what Dynamo will skip anyway, give a frame of its own. A call of a small function is an ordinary, resumable break in `forward`; Dynamo skips only the small function.",
#   "`def calibrated(h): try: return calibrate(h) except ValueError: return h` and `def run_monitors(h, monitors): for monitor in monitors: monitor(h)`; forward then does `h = calibrated(torch.relu(x @ w))`, `run_monitors(h, monitors)` and returns `h @ w.T`.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# # Only forward must compile: the helpers that hold the loop and the try are skipped by design.
# functions = ["forward"]
# ops = ["matmul", "relu", "tanh"]
# points = 3
#
# [[checks]]
# kind = "output"
# name = "monitors"
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
# forbid = ["allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "forward_compiles"
# text = "No frame of `forward` is skipped, and its matmuls and relu run inside graphs (small helpers of yours may be skipped)."
# checks = ["skips"]
#
# [[requirements]]
# id = "every_monitor"
# text = "Every call hands the calibrated activations to every monitor in `monitors`, in order, whatever monitors the caller passes: the same lines are printed as now."
# checks = ["monitors"]
#
# [[requirements]]
# id = "same_results"
# text = "`forward` returns what it returns now, for a batch `calibrate` rejects too (it then goes on uncalibrated)."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "one_helper"
# why = "one helper holds both the try and the loop, and returns the calibrated activations"
#
# [[fair]]
# name = "disabled_helpers"
# why = "the two helpers marked with torch.compiler.disable: the same frames kept out of Dynamo, explicitly"
#
# [[wrong]]
# name = "loop_isolated_only"
# breaks = "forward_compiles"
# fails = ["skips"]
# message = "No graph holds tanh"
#
# [[wrong]]
# name = "try_isolated_only"
# breaks = "forward_compiles"
# fails = ["skips"]
# message = "Dynamo skipped the (frame|rest) of `forward`.*loop"
#
# [[wrong]]
# name = "monitors_by_name"
# breaks = "every_monitor"
# fails = ["monitors"]
# message = "printed \\[.*\\]; the reference printed"
#
# [[wrong]]
# name = "monitors_see_raw"
# breaks = "every_monitor"
# fails = ["monitors"]
# message = "printed \\[.*\\]; the reference printed"
#
# [[wrong]]
# name = "fallback_dropped"
# breaks = "same_results"
# fails = ["correct"]
# message = "did not return"
#
# [[wrong]]
# name = "forward_in_graph"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "allow_in_graph"
# ///
"""Let `forward` compile around code that can never be compiled.

`forward(x, w, monitors)` computes hidden activations, has them calibrated by `calibrate` (the
vendor's code: it reads the batch as a Python number, and rejects an all-zero batch, which then
goes on uncalibrated), hands them to every monitor the caller passes (other teams' code: each
reads Python floats and prints them), and projects them back. The grader compiles `forward`
with the default `fullgraph=False` and calls it with batches and lists of monitors of its own:
nothing fails, yet most of `forward`'s work runs eagerly. The calibration and the
monitors are not yours to edit.
"""

import torch

# BEGIN STARTER
# # TODO: find out why forward never compiles, and fix it.
# END STARTER


# --- other teams' code: not yours to edit ------------------------------------------------------
def calibrate(h):
    """The vendor's calibration: divides by the mean magnitude, read as a Python number."""
    scale = float(h.abs().mean())
    if scale == 0.0:
        raise ValueError("cannot calibrate an all-zero batch")
    return h / scale


def mean_monitor(h):
    print("mean activation", round(float(h.mean()), 4))


def peak_monitor(h):
    print("peak activation", round(float(h.abs().max()), 4))


def norm_monitor(h):
    """Another team's newest monitor: the list of monitors a caller passes may grow."""
    print("norm of the activations", round(float(h.norm()), 3))
# --- end of the other teams' code --------------------------------------------------------------


# BEGIN SOLUTION
def calibrated(h):
    """Dynamo skips this frame (a break inside its try); only this small function runs eagerly."""
    try:
        return calibrate(h)
    except ValueError:
        return h


def run_monitors(h, monitors):
    """Dynamo skips this frame too (breaks inside its loop)."""
    for monitor in monitors:
        monitor(h)


def forward(x, w, monitors):
    h = calibrated(torch.relu(x @ w))
    run_monitors(h, monitors)
    return torch.tanh(h @ w.T)
# END SOLUTION
# BEGIN STARTER
# def forward(x, w, monitors):
#     h = torch.relu(x @ w)
#     try:
#         h = calibrate(h)
#     except ValueError:
#         pass  # an all-zero batch goes on uncalibrated
#     for monitor in monitors:
#         monitor(h)
#     return torch.tanh(h @ w.T)
# END STARTER
# BEGIN FAIR one_helper
# def side_work(h, monitors):
#     """Everything Dynamo cannot compile, in one frame of its own."""
#     try:
#         h = calibrate(h)
#     except ValueError:
#         pass
#     for monitor in monitors:
#         monitor(h)
#     return h
#
#
# def forward(x, w, monitors):
#     h = side_work(torch.relu(x @ w), monitors)
#     return torch.tanh(h @ w.T)
# END FAIR
# BEGIN FAIR disabled_helpers
# @torch.compiler.disable
# def calibrated(h):
#     try:
#         return calibrate(h)
#     except ValueError:
#         return h
#
#
# @torch.compiler.disable
# def run_monitors(h, monitors):
#     for monitor in monitors:
#         monitor(h)
#
#
# def forward(x, w, monitors):
#     h = torch.relu(x @ w)
#     h = calibrated(h)
#     run_monitors(h, monitors)
#     return torch.tanh(h @ w.T)
# END FAIR
# BEGIN WRONG loop_isolated_only
# def run_monitors(h, monitors):
#     for monitor in monitors:
#         monitor(h)
#
#
# def forward(x, w, monitors):
#     h = torch.relu(x @ w)
#     try:
#         h = calibrate(h)
#     except ValueError:
#         pass
#     run_monitors(h, monitors)
#     return torch.tanh(h @ w.T)
# END WRONG
# BEGIN WRONG try_isolated_only
# def calibrated(h):
#     try:
#         return calibrate(h)
#     except ValueError:
#         return h
#
#
# def forward(x, w, monitors):
#     h = calibrated(torch.relu(x @ w))
#     for monitor in monitors:
#         monitor(h)
#     return torch.tanh(h @ w.T)
# END WRONG
# BEGIN WRONG monitors_by_name
# def calibrated(h):
#     try:
#         return calibrate(h)
#     except ValueError:
#         return h
#
#
# def forward(x, w, monitors):
#     h = calibrated(torch.relu(x @ w))
#     mean_monitor(h)
#     peak_monitor(h)
#     return torch.tanh(h @ w.T)
# END WRONG
# BEGIN WRONG monitors_see_raw
# def calibrated(h):
#     try:
#         return calibrate(h)
#     except ValueError:
#         return h
#
#
# def run_monitors(h, monitors):
#     for monitor in monitors:
#         monitor(h)
#
#
# def forward(x, w, monitors):
#     h = torch.relu(x @ w)
#     run_monitors(h, monitors)
#     return torch.tanh(calibrated(h) @ w.T)
# END WRONG
# BEGIN WRONG fallback_dropped
# def run_monitors(h, monitors):
#     for monitor in monitors:
#         monitor(h)
#
#
# def forward(x, w, monitors):
#     h = calibrate(torch.relu(x @ w))
#     run_monitors(h, monitors)
#     return torch.tanh(h @ w.T)
# END WRONG
# BEGIN WRONG forward_in_graph
# @torch._dynamo.allow_in_graph
# def forward(x, w, monitors):
#     h = torch.relu(x @ w)
#     try:
#         h = calibrate(h)
#     except ValueError:
#         pass
#     for monitor in monitors:
#         monitor(h)
#     return torch.tanh(h @ w.T)
# END WRONG


# BEGIN GRADER
def calls(gen):
    """Four calls with lists of monitors drawn per seed (the file's three, in any order and any
    number, including the one the file's own demo never passes; one call with none), and, at a
    place drawn per seed but never first, a batch that `calibrate` rejects (all zero)."""
    w = torch.randn(8, 8, generator=gen) / 3
    pool = [mean_monitor, peak_monitor, norm_monitor]
    lists = [[pool[i] for i in torch.randperm(3, generator=gen)[:k].tolist()] for k in (2, 3, 0, 1)]
    batches = [torch.randn(int(torch.randint(1, 7, (1,), generator=gen)), 8, generator=gen) for _ in range(4)]
    batches[1 + int(torch.randint(3, (1,), generator=gen))] = torch.zeros(3, 8)
    return [(x, w, monitors) for x, monitors in zip(batches, lists)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    from autograder.lab import tally_calls

    torch._logging.set_logs(graph_breaks=True)  # each break Dynamo meets, and what it did about it
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(forward, [(x, w, [mean_monitor, peak_monitor]), (torch.zeros(2, 8), w, [peak_monitor])],
                        backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

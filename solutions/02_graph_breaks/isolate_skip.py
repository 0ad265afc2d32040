# /// exercise
# format_version = 1
# title = "Isolate code that will always be skipped, so the rest compiles"
# syllabus = ["2.5.5.6"]
# entry = "forward"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: `forward` is in the list of skipped frames. Its matmul, relu and the projection after the callbacks all run eagerly.",
#   "The callbacks read Python floats (a break each), and they run in a loop: a break inside a loop makes Dynamo skip the frame that holds the loop. The callbacks are not yours, and there may be more of them tomorrow, so the loop stays.",
#   "Lesson section 2.5.5.6: what Dynamo will skip anyway, give a frame of its own. Move the loop into a small helper function. `forward` then only calls the helper: a break at that call is an ordinary, resumable break, and only the tiny helper is skipped.",
#   "def run_callbacks(h): for callback in CALLBACKS: callback(h) ... and in forward: `run_callbacks(h)`.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# # Only forward must compile: the helper that holds the loop is skipped by design.
# functions = ["forward"]
# ops = ["matmul", "relu"]
# points = 3
#
# [[checks]]
# kind = "output"
# name = "callbacks"
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
# forbid = ["allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Let `forward` compile around callbacks that can never be compiled.

`forward` computes hidden activations, hands them to every callback registered in `CALLBACKS`
(monitoring code from another team: it reads Python floats and prints them), and projects the
activations back. The grader compiles `forward` with the default `fullgraph=False`: nothing
fails, yet `forward` is skipped, and its matmuls run eagerly. The callbacks are not yours and the
list may grow, so call every registered callback, in order, with the same activations. Make
`forward` itself compile (the grader fails a skipped `forward` and looks for its matmul and relu
in the graphs), while the callbacks print exactly what they print now.
"""

import torch


# --- another team's monitoring callbacks: not yours to edit ------------------------------------
def mean_monitor(h):
    print("mean activation", round(float(h.mean()), 4))


def peak_monitor(h):
    print("peak activation", round(float(h.abs().max()), 4))


CALLBACKS = [mean_monitor, peak_monitor]
# --- end of the other team's code --------------------------------------------------------------


# BEGIN SOLUTION
def run_callbacks(h):
    """Dynamo skips this frame (a break inside its loop); only this small function runs eagerly."""
    for callback in CALLBACKS:
        callback(h)


def forward(x, w):
    h = torch.relu(x @ w)
    run_callbacks(h)
    return h @ w.T
# END SOLUTION
# BEGIN STARTER
# def forward(x, w):
#     h = torch.relu(x @ w)
#     for callback in CALLBACKS:  # TODO: breaks inside this loop make Dynamo skip all of forward
#         callback(h)
#     return h @ w.T
# END STARTER


# BEGIN GRADER
def calls(gen):
    w = torch.randn(8, 8, generator=gen) / 3
    return [(torch.randn(4, 8, generator=gen), w) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(forward, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

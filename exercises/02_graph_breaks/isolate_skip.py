# Exercise isolate_skip: A forward pass that compiles around code that never will
# Edit this file, then check it with:  ./course check isolate_skip
# Stuck? ./course hint isolate_skip   Start over: ./course reset isolate_skip
"""Let `forward` compile around code that can never be compiled.

`forward(x, w, monitors)` computes hidden activations, has them calibrated by `calibrate` (the
vendor's code: it reads the batch as a Python number, and rejects an all-zero batch, which then
goes on uncalibrated), hands them to every monitor the caller passes (other teams' code: each
reads Python floats and prints them), and projects them back. The grader compiles `forward`
with the default `fullgraph=False` and calls it with batches and lists of monitors of its own:
nothing fails, yet most of `forward`'s work runs eagerly. The calibration and the
monitors are not yours to edit.

What the grader checks:
- No frame of `forward` is skipped, and its matmuls and relu run inside graphs (small helpers of yours may be skipped).
- Every call hands the calibrated activations to every monitor in `monitors`, in order, whatever monitors the caller passes: the same lines are printed as now.
- `forward` returns what it returns now, for a batch `calibrate` rejects too (it then goes on uncalibrated).
- Nothing is hidden from the compiler: no `allow_in_graph`, `is_compiling()` or stance.
"""

import torch

# TODO: find out why forward never compiles, and fix it.


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


def forward(x, w, monitors):
    h = torch.relu(x @ w)
    try:
        h = calibrate(h)
    except ValueError:
        pass  # an all-zero batch goes on uncalibrated
    for monitor in monitors:
        monitor(h)
    return torch.tanh(h @ w.T)


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

# Exercise isolate_skip: Isolate code that will always be skipped, so the rest compiles
# Edit this file, then check it with:  ./course check isolate_skip
# Stuck? ./course hint isolate_skip   Start over: ./course reset isolate_skip
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


def forward(x, w):
    h = torch.relu(x @ w)
    for callback in CALLBACKS:  # TODO: breaks inside this loop make Dynamo skip all of forward
        callback(h)
    return h @ w.T


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(forward, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

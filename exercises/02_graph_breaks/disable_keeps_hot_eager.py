# Exercise disable_keeps_hot_eager: Fence off a feature step's report without running its features eagerly
# Edit this file, then check it with:  ./course check disable_keeps_hot_eager
# Stuck? ./course hint disable_keeps_hot_eager   Start over: ./course reset disable_keeps_hot_eager
"""Turn a batch of sensor readings into features, and report how many readings were clipped.

`serve_features(readings)` standardises each row of a batch (minus the row's mean, over its
spread), clamps the result to `[-CLIP, CLIP]` and applies an output gain. For the service's
dashboard it also reports, per batch, the share of readings the clamp cut: one printed line, and
the share appended to `CLIPPED_HISTORY`. The report broke the compiled graph in several places, so
a teammate fenced `features_with_report` off with `torch.compiler.disable`. The breaks are gone,
the answers are right, but compiled, the step is no faster than eager.

What the grader checks:
- The report stays fenced off with `torch.compiler.disable`: the only graph breaks left are calls of disabled functions.
- The features' tensor work (the standardisation with its `std`, the `clamp`) runs inside a graph, and no frame is skipped.
- Every call prints the line it prints now.
- `serve_features` returns the features it returns now, for batches of any size.
- A pass of the grader's calls on a large batch, `serve_features` compiled with Inductor, is at least 3x faster than the starting code compiled the same way, and at least 3x faster than your code run eagerly (on a CPU and on a CUDA GPU alike).
- Nothing else is hidden from the compiler: no `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch

EPS = 1e-5
CLIP = 2.5
GAIN, BIAS = 0.8, 0.1
CLIPPED_HISTORY = []  # the share of clipped readings per batch, read by the service's dashboard


def standardize(readings):
    """Each row minus its mean, over its spread (the unbiased standard deviation)."""
    mean = readings.mean(dim=1, keepdim=True)
    spread = readings.std(dim=1, keepdim=True)
    return (readings - mean) / (spread + EPS)


@torch.compiler.disable  # TODO: the breaks are gone, but compiled this step is no faster than eager. Why?
def features_with_report(readings):
    z = standardize(readings)
    share = (z.abs() > CLIP).float().mean().item()
    CLIPPED_HISTORY.append(share)
    print(f"features: {readings.shape[0]} rows, {share:.2%} of readings clipped")
    return torch.clamp(z, -CLIP, CLIP) * GAIN + BIAS


def serve_features(readings):
    return features_with_report(readings)


if __name__ == "__main__":
    import time

    from autograder.lab import tally_calls

    readings = torch.randn(2048, 4096)
    tally = tally_calls(serve_features, [(readings[:16],)])  # graphs and breaks, with a cheap backend
    print(tally, "| break types:", sorted(set(tally.break_types)))
    compiled = torch.compile(serve_features)  # Inductor
    compiled(readings)  # the first call compiles
    for name, fn in (("eager", serve_features), ("compiled", compiled)):
        started = time.perf_counter()
        fn(readings)
        print(f"{name}: {1000 * (time.perf_counter() - started):.1f} ms a call")

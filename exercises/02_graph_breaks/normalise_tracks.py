# Exercise normalise_tracks: Level audio tracks by loudness and peak without splitting the chain
# Edit this file, then check it with:  ./course check normalise_tracks
# Stuck? ./course hint normalise_tracks   Start over: ./course reset normalise_tracks
"""Level a batch of audio tracks to one loudness.

`normalise(track)` takes a stereo track (float32 samples, full scale 1.0; the grader's are about 8
million samples) and levels it: an input trim with a clip at full scale, then one gain, the one
that brings the track's loudness (its RMS) to `TARGET_RMS`, lowered where a peak would end beyond
`CEILING` and never more than `MAX_GAIN`, and last a share `DRY` of the untouched input blended
back in. The batch job compiles it with the default `fullgraph=False`. The tracks come out right,
but compiled it runs well below the speed that the same chain of ops reaches in one compiled graph.

What the grader checks:
- `normalise`, compiled with the default `fullgraph=False`, runs as one graph: no graph break, and no second graph for a track of another loudness.
- It returns the track it returns now: trimmed and clipped at full scale, multiplied by one gain (the one that brings its loudness, the RMS, to `TARGET_RMS`, lowered where a peak would end beyond `CEILING`, and at most `MAX_GAIN`, a silent track included), then blended with the untouched input.
- A pass of the grader's calls, `normalise` compiled with Inductor, is at least 1.3x faster than the starting code compiled the same way, and at least 3x faster than your code run eagerly (on a CPU and on a CUDA GPU alike).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


TRIM = 1.2  # input trim, before the clip at full scale
TARGET_RMS = 0.2  # the loudness every track is levelled to
MAX_GAIN = 8.0  # a near-silent track would only have its noise brought up
CEILING = 0.9  # no levelled sample beyond this: the gain is lowered for a track with high peaks
DRY = 0.2  # the share of the untouched input blended back in


def normalise(track):
    # TODO: compiled, this runs well below the speed its ops reach in one graph. Why?
    x = torch.clamp(track * TRIM, -1.0, 1.0)
    rms = x.pow(2).mean().sqrt().item()
    peak = x.abs().amax().item()
    gain = min(TARGET_RMS / max(rms, 1e-6), CEILING / max(peak, 1e-6), MAX_GAIN)
    return (1 - DRY) * (x * gain) + DRY * track


if __name__ == "__main__":
    import time

    from autograder.lab import tally_calls

    track = 0.3 * torch.randn(2, 1 << 22)
    print(tally_calls(normalise, [(track[:, :512],), (0.01 * track[:, :512],)]))  # graphs and breaks, with a cheap backend
    compiled = torch.compile(normalise)  # Inductor
    compiled(track)  # the first call compiles
    for name, fn in (("eager", normalise), ("compiled", compiled)):
        started = time.perf_counter()
        fn(track)
        print(f"{name}: {1000 * (time.perf_counter() - started):.1f} ms a call")

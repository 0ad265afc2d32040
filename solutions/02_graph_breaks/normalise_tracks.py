# /// exercise
# format_version = 1
# title = "Level audio tracks by loudness and peak without splitting the chain"
# syllabus = ["2.2.2.1", "2.2.2"]
# entry = "normalise"
# # The grader compiles `normalise` with the default fullgraph=False, as the batch job does.
# allow_config = ["capture_scalar_outputs"]
# starter_fails = ["one_graph"]  # and its speed check, which runs only once the structure passes (docs/MEASUREMENTS.md)
# hints = [
#   "Run the file: it compiles and the tracks are right, but `normalise` is split into several graphs. `TORCH_LOGS=graph_breaks` names the lines.",
#   "Every op of `normalise` is a cheap pass over the samples: in one graph Inductor reads the track once for both statistics and once more to write the result. Split where a statistic becomes a Python number, the first graph must write the trimmed track to memory and the graphs after it read it back: more passes over memory for the same answer.",
#   "Lesson section 2.2.2.1: a statistic can stay a 0-d tensor; it scales a track as a float does, and tensor ops can take the place of Python's `min` and `max` (a quotient by zero is `inf` in a tensor, not an error). Or let Dynamo capture the numbers into the graph.",
#   "`gain = torch.minimum(TARGET_RMS / x.pow(2).mean().sqrt(), CEILING / x.abs().amax()).clamp(max=MAX_GAIN)`; or, leaving the code as it is, `torch._dynamo.config.capture_scalar_outputs = True` after `import torch`.",
# ]
#
# [[checks]]
# kind = "graphs"
# name = "one_graph"
# equal = 1
# points = 2
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
# [[checks]]
# kind = "speed"
# name = "fast"
# inputs = "speed_calls"
# against = "starter"
# min_ratio = { cpu = 1.3, cuda = 1.3 }
# eager_min_ratio = { cpu = 3.0, cuda = 3.0 }
# warmup = 3
# repeats = 15
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`normalise`, compiled with the default `fullgraph=False`, runs as one graph: no graph break, and no second graph for a track of another loudness."
# checks = ["one_graph"]
#
# [[requirements]]
# id = "same_tracks"
# text = "It returns the track it returns now: trimmed and clipped at full scale, multiplied by one gain (the one that brings its loudness, the RMS, to `TARGET_RMS`, lowered where a peak would end beyond `CEILING`, and at most `MAX_GAIN`, a silent track included), then blended with the untouched input."
# checks = ["correct"]
#
# [[requirements]]
# id = "fast"
# text = "A pass of the grader's calls, `normalise` compiled with Inductor, is at least 1.3x faster than the starting code compiled the same way, and at least 3x faster than your code run eagerly (on a CPU and on a CUDA GPU alike)."
# checks = ["fast"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "capture_scalars"
# why = "leaves the code as it is and turns on capture_scalar_outputs: the .item() becomes a number the graph computes, and Inductor still fuses the chain around it"
#
# [[fair]]
# name = "stacked_limits"
# why = "the three limits on the gain stacked into one tensor, and the smallest taken with amin"
#
# [[wrong]]
# name = "float_loudness"
# breaks = "one_graph"
# fails = ["one_graph"]
# message = "[0-9]+ graph\\(s\\) compiled over 6 call\\(s\\); expected exactly 1"
#
# [[wrong]]
# name = "no_cap"
# breaks = "same_tracks"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "loudness_only"
# breaks = "same_tracks"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "guarded_division"
# breaks = "same_tracks"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "item_when_eager"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "is_compiling"
#
# [[wrong]]
# name = "metered"
# breaks = "fast"
# fails = ["fast"]
# message = "than the compiled starter \\(needs 1.3x faster on cpu\\)"
# ///
"""Level a batch of audio tracks to one loudness.

`normalise(track)` takes a stereo track (float32 samples, full scale 1.0; the grader's are about 8
million samples) and levels it: an input trim with a clip at full scale, then one gain, the one
that brings the track's loudness (its RMS) to `TARGET_RMS`, lowered where a peak would end beyond
`CEILING` and never more than `MAX_GAIN`, and last a share `DRY` of the untouched input blended
back in. The batch job compiles it with the default `fullgraph=False`. The tracks come out right,
but compiled it runs well below the speed that the same chain of ops reaches in one compiled graph.
"""

import torch

# BEGIN FAIR capture_scalars
# torch._dynamo.config.capture_scalar_outputs = True
# END FAIR

TRIM = 1.2  # input trim, before the clip at full scale
TARGET_RMS = 0.2  # the loudness every track is levelled to
MAX_GAIN = 8.0  # a near-silent track would only have its noise brought up
CEILING = 0.9  # no levelled sample beyond this: the gain is lowered for a track with high peaks
DRY = 0.2  # the share of the untouched input blended back in
# BEGIN WRONG metered
# METER = {"levelled": None}  # the level meter shows the levelled track of the last call
# END WRONG


def normalise(track):
    # BEGIN SOLUTION
    x = torch.clamp(track * TRIM, -1.0, 1.0)
    rms = x.pow(2).mean().sqrt()
    peak = x.abs().amax()
    gain = torch.minimum(TARGET_RMS / rms, CEILING / peak).clamp(max=MAX_GAIN)  # a silent track: inf, capped
    return (1 - DRY) * (x * gain) + DRY * track
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: compiled, this runs well below the speed its ops reach in one graph. Why?
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # rms = x.pow(2).mean().sqrt().item()
    # peak = x.abs().amax().item()
    # gain = min(TARGET_RMS / max(rms, 1e-6), CEILING / max(peak, 1e-6), MAX_GAIN)
    # return (1 - DRY) * (x * gain) + DRY * track
    # END STARTER
    # BEGIN FAIR capture_scalars
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # rms = x.pow(2).mean().sqrt().item()
    # peak = x.abs().amax().item()
    # gain = min(TARGET_RMS / max(rms, 1e-6), CEILING / max(peak, 1e-6), MAX_GAIN)
    # return (1 - DRY) * (x * gain) + DRY * track
    # END FAIR
    # BEGIN FAIR stacked_limits
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # limits = torch.stack([TARGET_RMS / x.pow(2).mean().sqrt(), CEILING / x.abs().amax(), torch.tensor(MAX_GAIN)])
    # return (1 - DRY) * (x * limits.amin()) + DRY * track
    # END FAIR
    # BEGIN WRONG float_loudness
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # rms = float(x.pow(2).mean().sqrt())
    # peak = float(x.abs().amax())
    # gain = min(TARGET_RMS / max(rms, 1e-6), CEILING / max(peak, 1e-6), MAX_GAIN)
    # return (1 - DRY) * (x * gain) + DRY * track
    # END WRONG
    # BEGIN WRONG no_cap
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # gain = torch.minimum(TARGET_RMS / x.pow(2).mean().sqrt(), CEILING / x.abs().amax())
    # return (1 - DRY) * (x * gain) + DRY * track
    # END WRONG
    # BEGIN WRONG loudness_only
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # gain = (TARGET_RMS / x.pow(2).mean().sqrt()).clamp(max=MAX_GAIN)
    # return (1 - DRY) * (x * gain) + DRY * track
    # END WRONG
    # BEGIN WRONG guarded_division
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # rms = x.pow(2).mean().sqrt()
    # peak = x.abs().amax()
    # gain = torch.minimum(TARGET_RMS / (rms + 1e-6), CEILING / (peak + 1e-6)).clamp(max=MAX_GAIN)  # no division by zero
    # return (1 - DRY) * (x * gain) + DRY * track
    # END WRONG
    # BEGIN WRONG item_when_eager
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # if torch.compiler.is_compiling():
    #     gain = torch.minimum(TARGET_RMS / x.pow(2).mean().sqrt(), CEILING / x.abs().amax()).clamp(max=MAX_GAIN)
    # else:  # the eager path stays as it was
    #     rms = x.pow(2).mean().sqrt().item()
    #     peak = x.abs().amax().item()
    #     gain = min(TARGET_RMS / max(rms, 1e-6), CEILING / max(peak, 1e-6), MAX_GAIN)
    # return (1 - DRY) * (x * gain) + DRY * track
    # END WRONG
    # BEGIN WRONG metered
    # x = torch.clamp(track * TRIM, -1.0, 1.0)
    # gain = torch.minimum(TARGET_RMS / x.pow(2).mean().sqrt(), CEILING / x.abs().amax()).clamp(max=MAX_GAIN)
    # METER["levelled"] = x * gain
    # return (1 - DRY) * METER["levelled"] + DRY * track
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Six short stereo tracks of one length (drawn per seed; another length would compile a
    second graph), each at a loudness of its own: five with sparse peaks eight times their level (a
    quiet one whose gain the cap stops, a loud one that clips at full scale, a silent one: all
    zeros, no division by zero, the gain is the cap; and two ordinary ones whose peaks lower the
    gain), and a quiet one without peaks whose loudness sets a gain just under the cap, where the
    RMS is smallest and anything added to it shows. In an order drawn per seed. Cheap: the
    structure checks run on these."""
    length = 256 * int(torch.randint(1, 5, (1,), generator=gen))
    loudness = [0.002, 1.5, 0.0, 0.05 + 0.1 * float(torch.rand(1, generator=gen)), 0.15 + 0.2 * float(torch.rand(1, generator=gen))]
    near_cap = TARGET_RMS / MAX_GAIN / TRIM * (1.02 + 0.06 * float(torch.rand(1, generator=gen)))  # a gain of 7.4 to 7.8
    tracks = []
    for i in torch.randperm(len(loudness) + 1, generator=gen).tolist():
        if i == len(loudness):
            track = torch.randn(2, length, generator=gen)
            tracks.append((track * (near_cap / track.pow(2).mean().sqrt()),))
            continue
        track = loudness[i] * torch.randn(2, length, generator=gen)
        track[:, ::61] *= 8
        tracks.append((track,))
    return tracks


def speed_calls(gen):
    """What the speed check times: one stereo track of 8.4 million samples (34 MB; the grader's
    channel carries at most 64 MB a message), at a loudness drawn per seed. At this size a pass
    over the track is a pass over memory, and each fresh buffer of it costs its page faults: what a
    split graph adds (the trimmed track written out and read back) is most of a call."""
    loudness = 0.05 + 0.5 * float(torch.rand(1, generator=gen))
    return [(loudness * torch.randn(2, 1 << 22, generator=gen),)]
# END GRADER


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

# /// exercise
# format_version = 1
# title = "Keep a calibration's progress lines without splitting its kernel"
# syllabus = ["2.2.3"]
# entry = "calibrate"
# # The grader compiles `calibrate` with the default fullgraph=False, as the service does.
# # The one configuration change allowed: reorderable_logging_functions may gain print.
# config_may_add = { reorderable_logging_functions = ["print"] }
# starter_fails = ["one_graph"]  # and its speed check, which runs only once the structure passes (docs/MEASUREMENTS.md)
# hints = [
#   "Run the file: it compiles, the answers are right and both lines are printed, but the compiled function is split into two graphs. `TORCH_LOGS=graph_breaks` names the line.",
#   "Every op of `calibrate` is cheap: compiled as one graph, Inductor computes the whole chain in one pass over the frame. Split at a print, the first graph must write its intermediate frame to memory and the second must read it back: twice the memory traffic for the same answer.",
#   "Lesson section 2.2.3: Dynamo can move a print to after the graph when print is one of `torch._dynamo.config.reorderable_logging_functions`; then the lines still come out, in their order, once the graph has run. Where a break sits matters too: one after the last op costs no fusion.",
#   "Add `torch._dynamo.config.reorderable_logging_functions.add(print)` after `import torch`, and keep both prints where they are.",
# ]
#
# [[checks]]
# kind = "graphs"
# name = "one_graph"
# equal = 1
# points = 2
#
# [[checks]]
# kind = "output"
# name = "lines"
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
#
# [[checks]]
# kind = "speed"
# name = "fast"
# inputs = "speed_calls"
# against = "starter"
# min_ratio = { cpu = 1.5, cuda = 1.5 }
# eager_min_ratio = { cpu = 3.0, cuda = 3.0 }
# warmup = 3
# repeats = 15
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`calibrate`, compiled with the default `fullgraph=False`, runs as one graph per call (a print may still end it)."
# checks = ["one_graph"]
#
# [[requirements]]
# id = "same_lines"
# text = "Each call prints exactly the two progress lines it prints now, in their order."
# checks = ["lines"]
#
# [[requirements]]
# id = "same_frames"
# text = "It returns the calibrated frame it returns now."
# checks = ["correct"]
#
# [[requirements]]
# id = "fast"
# text = "A pass of the grader's calls, `calibrate` compiled with Inductor, is at least 1.5x faster than the starting code compiled the same way, and at least 3x faster than your code run eagerly (on a CPU and on a CUDA GPU alike)."
# checks = ["fast"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "prints_last"
# why = "moves both prints after the last op: the break then ends the only graph, after the whole chain, and costs no fusion"
#
# [[fair]]
# name = "one_print"
# why = "prints both lines with one print of two lines after the chain"
#
# [[wrong]]
# name = "no_lines"
# breaks = "same_lines"
# fails = ["lines"]
# message = "printed"
#
# [[wrong]]
# name = "one_moved"
# breaks = "one_graph"
# fails = ["one_graph"]
# message = "2 graph"
#
# [[wrong]]
# name = "lines_when_eager"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "is_compiling"
#
# [[wrong]]
# name = "keeps_stage"
# breaks = "fast"
# fails = ["fast"]
# message = "slower than the compiled starter \\(needs 1.5x faster on cpu\\)"
#
# [[wrong]]
# name = "no_dead_zone"
# breaks = "same_frames"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Calibrate camera frames, and say how far each call got.

`calibrate(frame)` turns a raw sensor frame (about 8 million float32 readings) into calibrated
values: a gain and an offset per reading, a clamp to the sensor's range, a dead zone that zeroes
the smallest values, then the output gain. The service compiles it with the default
`fullgraph=False` and logs two progress lines per call. The answers are right, but compiled it
runs at about half the speed that the same chain of ops reaches in one compiled graph.
"""

import torch

# BEGIN SOLUTION
torch._dynamo.config.reorderable_logging_functions.add(print)
# END SOLUTION
# BEGIN FAIR prints_last
# # print is left as it is: a break after the last op costs no fusion
# END FAIR
# BEGIN FAIR one_print
# # print is left as it is
# END FAIR
# BEGIN WRONG one_moved
# # print is left as it is
# END WRONG
# BEGIN WRONG keeps_stage
# # print is left as it is
# END WRONG

GAIN, OFFSET = 1.7, -0.3
RANGE = 3.0
DEAD_ZONE = 0.25
# BEGIN WRONG keeps_stage
# STAGES = {"clamped": None, "dead_zone": None}  # for debugging: the frame after each stage of the last call
# END WRONG


def calibrate(frame):
    # BEGIN SOLUTION
    x = frame * GAIN + OFFSET
    x = torch.clamp(x, -RANGE, RANGE)
    print("calibrate: scaled and clamped")
    x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    x = x * 0.8 + 0.1
    print("calibrate: dead zone applied")
    return x
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: compiled, this runs at half the speed that its ops reach in one graph. Why?
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # print("calibrate: scaled and clamped")
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # x = x * 0.8 + 0.1
    # print("calibrate: dead zone applied")
    # return x
    # END STARTER
    # BEGIN FAIR prints_last
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # x = x * 0.8 + 0.1
    # print("calibrate: scaled and clamped")
    # print("calibrate: dead zone applied")
    # return x
    # END FAIR
    # BEGIN FAIR one_print
    # x = torch.clamp(frame * GAIN + OFFSET, -RANGE, RANGE)
    # x = (torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)) * 0.8 + 0.1
    # print("calibrate: scaled and clamped\ncalibrate: dead zone applied")
    # return x
    # END FAIR
    # BEGIN WRONG no_lines
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # return x * 0.8 + 0.1
    # END WRONG
    # BEGIN WRONG one_moved
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # print("calibrate: scaled and clamped")  # moved down, but one op still follows it
    # x = x * 0.8 + 0.1
    # print("calibrate: dead zone applied")
    # return x
    # END WRONG
    # BEGIN WRONG lines_when_eager
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # if not torch.compiler.is_compiling():
    #     print("calibrate: scaled and clamped")
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # x = x * 0.8 + 0.1
    # print("calibrate: dead zone applied")
    # return x
    # END WRONG
    # BEGIN WRONG keeps_stage
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # STAGES["clamped"] = x
    # x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    # STAGES["dead_zone"] = x
    # x = x * 0.8 + 0.1
    # print("calibrate: scaled and clamped")
    # print("calibrate: dead zone applied")
    # return x
    # END WRONG
    # BEGIN WRONG no_dead_zone
    # x = frame * GAIN + OFFSET
    # x = torch.clamp(x, -RANGE, RANGE)
    # x = x * 0.8 + 0.1
    # print("calibrate: scaled and clamped")
    # print("calibrate: dead zone applied")
    # return x
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Three small frames of one shape (a new shape would compile a second graph), scaled per seed
    so that each clamps and zeroes a different share, with readings placed exactly where the clamp
    and the dead zone begin. Cheap: the structure checks run on these."""
    edges = torch.tensor([(RANGE - OFFSET) / GAIN, (-RANGE - OFFSET) / GAIN, (DEAD_ZONE - OFFSET) / GAIN, (-DEAD_ZONE - OFFSET) / GAIN, 0.0])
    frames = []
    for _ in range(3):
        scale = 0.5 + 2.0 * float(torch.rand(1, generator=gen))
        frame = scale * torch.randn(64, 256, generator=gen)
        frame.view(-1)[:5] = edges
        frames.append((frame,))
    return frames


def speed_calls(gen):
    """What the speed check times: one frame of 8.4 million readings (34 MB: more than the CPU's
    last-level cache, so the chain's passes over memory are what a call costs; the grader's channel
    carries at most 64 MB a message), scaled per seed."""
    scale = 0.5 + 2.0 * float(torch.rand(1, generator=gen))
    return [(scale * torch.randn(2048, 4096, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    import time

    from autograder.lab import tally_calls

    frame = torch.randn(2048, 4096)
    print(tally_calls(calibrate, [(frame[:4],)]))  # graphs and breaks, with a cheap backend
    compiled = torch.compile(calibrate)  # Inductor
    compiled(frame)  # the first call compiles
    for name, fn in (("eager", calibrate), ("compiled", compiled)):
        started = time.perf_counter()
        fn(frame)
        print(f"{name}: {1000 * (time.perf_counter() - started):.1f} ms a call")

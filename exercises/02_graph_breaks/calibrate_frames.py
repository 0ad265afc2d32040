# Exercise calibrate_frames: Keep a calibration's progress lines without splitting its kernel
# Edit this file, then check it with:  ./course check calibrate_frames
# Stuck? ./course hint calibrate_frames   Start over: ./course reset calibrate_frames
"""Calibrate camera frames, and say how far each call got.

`calibrate(frame)` turns a raw sensor frame (about 8 million float32 readings) into calibrated
values: a gain and an offset per reading, a clamp to the sensor's range, a dead zone that zeroes
the smallest values, then the output gain. The service compiles it with the default
`fullgraph=False` and logs two progress lines per call. The answers are right, but compiled it
runs at about half the speed that the same chain of ops reaches in one compiled graph.

What the grader checks:
- `calibrate`, compiled with the default `fullgraph=False`, runs as one graph per call (a print may still end it).
- Each call prints exactly the two progress lines it prints now, in their order.
- It returns the calibrated frame it returns now.
- A pass of the grader's calls, `calibrate` compiled with Inductor, is at least 1.5x faster than the starting code compiled the same way, and at least 3x faster than your code run eagerly (on a CPU and on a CUDA GPU alike).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


GAIN, OFFSET = 1.7, -0.3
RANGE = 3.0
DEAD_ZONE = 0.25


def calibrate(frame):
    # TODO: compiled, this runs at half the speed that its ops reach in one graph. Why?
    x = frame * GAIN + OFFSET
    x = torch.clamp(x, -RANGE, RANGE)
    print("calibrate: scaled and clamped")
    x = torch.relu(x.abs() - DEAD_ZONE) * torch.sign(x)
    x = x * 0.8 + 0.1
    print("calibrate: dead zone applied")
    return x


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

# Exercise io_calibration: Read the calibration file outside the compiled code
# Edit this file, then check it with:  ./course check io_calibration
# Stuck? ./course hint io_calibration   Start over: ./course reset io_calibration
"""Keep file reading out of the compiled function.

`calibrate` centres a batch of sensor readings and applies per-channel calibration that it reads
from a JSON file in the middle of the computation. The grader compiles `calibrate` with
`fullgraph=True` and calls `run(compiled_calibrate, x, path)` with a different calibration file
each time. Make `calibrate` compile into one graph that serves every call, while `run` still
applies the calibration stored in the file it is given.
"""

import json

import torch


def calibrate(x, path):
    centered = x - x.mean(dim=0)
    with open(path) as f:  # TODO: reading a file cannot be compiled; read it in run and pass tensors in
        stats = json.load(f)
    return centered * torch.tensor(stats["scale"]) + torch.tensor(stats["shift"])


def run(step, x, path):
    """The eager caller; `step` is the compiled calibrate."""
    return step(x, path)


def write_calibration(path, scale, shift):
    with open(path, "w") as f:
        json.dump({"scale": scale, "shift": shift}, f)


if __name__ == "__main__":
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "calibration.json")
    write_calibration(path, [1.0, 2.0, 0.5, 1.0, 1.0, 3.0], 0.25)
    print(run(torch.compile(calibrate, fullgraph=True, backend="eager"), torch.randn(5, 6), path))

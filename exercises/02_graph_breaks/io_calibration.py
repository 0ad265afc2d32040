# Exercise io_calibration: One compiled calibration step for every calibration file
# Edit this file, then check it with:  ./course check io_calibration
# Stuck? ./course hint io_calibration   Start over: ./course reset io_calibration
"""Make `calibrate` one graph that serves every calibration file.

`calibrate` centres a batch of sensor readings and applies a per-channel calibration that it reads
from a JSON file in the middle of the computation. The grader compiles `calibrate` with
`fullgraph=True` and calls `run(compiled_calibrate, x, path)` with a different calibration file
each time. You may change `calibrate` and `run` together.

What the grader checks:
- `calibrate` compiles with `fullgraph=True`: no graph break.
- One graph serves every calibration file: new values in a new file cause no recompile.
- `run(step, x, path)` returns the batch centred on its column means, then scaled and shifted by the `scale` and `shift` stored in the file at `path` when it is called (a file may be written again between calls).
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import json

import torch


def calibrate(x, path):
    # TODO: make calibrate compile with fullgraph=True (its caller, run, may change too).
    centered = x - x.mean(dim=0)
    with open(path) as f:
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

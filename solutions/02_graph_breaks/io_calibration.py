# /// exercise
# format_version = 1
# title = "Read the calibration file outside the compiled code"
# syllabus = ["2.1.3"]
# entry = "calibrate"
# # The task is reading a file outside the compiled function: `open` stays allowed.
# scan_allow = ["name:open"]
# # The grader calls run(compiled_calibrate, x, path): the eager code around the compiled function.
# driver = "run"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the line of calibrate that opens the file.",
#   "Opening and parsing a file is not tensor work: Dynamo cannot put it into a graph, and there would be nothing to gain if it could.",
#   "Strategy 3 (lesson section 2.1.3): do not compile that code. Read the file in run, which is not compiled, and give calibrate what it needs as tensors.",
#   "In run: load the JSON, then `return step(x, torch.tensor(stats[\"scale\"]), torch.tensor(stats[\"shift\"]))`; calibrate takes (x, scale, shift). Tensors, not Python floats: a float argument is guarded on its value and would recompile.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Keep file reading out of the compiled function.

`calibrate` centres a batch of sensor readings and applies per-channel calibration that it reads
from a JSON file in the middle of the computation. The grader compiles `calibrate` with
`fullgraph=True` and calls `run(compiled_calibrate, x, path)` with a different calibration file
each time. Make `calibrate` compile into one graph that serves every call, while `run` still
applies the calibration stored in the file it is given.
"""

import json

import torch


# BEGIN SOLUTION
def calibrate(x, scale, shift):
    centered = x - x.mean(dim=0)
    return centered * scale + shift
# END SOLUTION
# BEGIN STARTER
# def calibrate(x, path):
#     centered = x - x.mean(dim=0)
#     with open(path) as f:  # TODO: reading a file cannot be compiled; read it in run and pass tensors in
#         stats = json.load(f)
#     return centered * torch.tensor(stats["scale"]) + torch.tensor(stats["shift"])
# END STARTER


def run(step, x, path):
    """The eager caller; `step` is the compiled calibrate."""
    # BEGIN SOLUTION
    with open(path) as f:
        stats = json.load(f)
    return step(x, torch.tensor(stats["scale"]), torch.tensor(stats["shift"]))
    # END SOLUTION
    # BEGIN STARTER
    # return step(x, path)
    # END STARTER


def write_calibration(path, scale, shift):
    with open(path, "w") as f:
        json.dump({"scale": scale, "shift": shift}, f)


# BEGIN GRADER
def calls(gen):
    schedule = []
    for number in range(3):
        path = f"calibration_{number}.json"  # written in the grader's scratch folder
        write_calibration(path, (torch.rand(6, generator=gen) + 0.5).tolist(), torch.randn(1, generator=gen).item())
        schedule.append((torch.randn(5, 6, generator=gen), path))
    return schedule
# END GRADER


if __name__ == "__main__":
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "calibration.json")
    write_calibration(path, [1.0, 2.0, 0.5, 1.0, 1.0, 3.0], 0.25)
    print(run(torch.compile(calibrate, fullgraph=True, backend="eager"), torch.randn(5, 6), path))

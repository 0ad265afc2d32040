# /// exercise
# format_version = 1
# title = "One compiled calibration step for every calibration file"
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
#   "Strategy 3 (lesson section 2.1.3): do not compile that code. Read the file in run, which is not compiled, on every call, and give calibrate what it needs. In what form? A Python number that reaches the compiled code is guarded on its value (lesson 1.3): the next file's values would compile again.",
#   "In run: load the JSON, then `return step(x, torch.tensor(stats[\"scale\"]), torch.tensor(stats[\"shift\"]))`; calibrate takes (x, scale, shift) and returns `(x - x.mean(dim=0)) * scale + shift`.",
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
#
# [[requirements]]
# id = "one_graph"
# text = "`calibrate` compiles with `fullgraph=True`: no graph break."
# checks = ["compiles"]
#
# [[requirements]]
# id = "one_graph_serves"
# text = "One graph serves every calibration file: new values in a new file cause no recompile."
# checks = ["graphs"]
#
# [[requirements]]
# id = "calibrated"
# text = "`run(step, x, path)` returns the batch centred on its column means, then scaled and shifted by the `scale` and `shift` stored in the file at `path` when it is called (a file may be written again between calls)."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "stats_dict"
# why = "run hands the step a dict of tensors, which Dynamo reads key by key"
#
# [[fair]]
# name = "one_tensor"
# why = "scale and shift packed into one (2, channels) tensor"
#
# [[wrong]]
# name = "disabled_reader"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*(disable|skipped)"
#
# [[wrong]]
# name = "python_numbers"
# breaks = "one_graph_serves"
# fails = ["graphs"]
# message = "graph\\(s\\) compiled over \\d+ call\\(s\\); expected exactly 1.*recompiles"
#
# [[wrong]]
# name = "read_once"
# breaks = "calibrated"
# fails = ["correct"]
# message = "Call [2-5] of 5 .*differs from the reference"
#
# [[wrong]]
# name = "cached_by_path"
# breaks = "calibrated"
# fails = ["correct"]
# message = "Call 5 of 5 .*differs from the reference"
#
# [[wrong]]
# name = "is_compiling_guard"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "is_compiling"
#
# [[wrong]]
# name = "plain_call"
# breaks = "one_graph_serves"
# fails = ["graphs"]
# message = "0 graph\\(s\\) compiled"
# ///
"""Make `calibrate` one graph that serves every calibration file.

`calibrate` centres a batch of sensor readings and applies a per-channel calibration that it reads
from a JSON file in the middle of the computation. The grader compiles `calibrate` with
`fullgraph=True` and calls `run(compiled_calibrate, x, path)` with a different calibration file
each time. You may change `calibrate` and `run` together.
"""

import json

import torch

# BEGIN WRONG read_once
# CALIBRATION = {}
# END WRONG
# BEGIN WRONG cached_by_path
# READ = {}  # each file read once, by its path
# END WRONG


# BEGIN SOLUTION
def calibrate(x, scale, shift):
    centered = x - x.mean(dim=0)
    return centered * scale + shift
# END SOLUTION
# BEGIN STARTER
# def calibrate(x, path):
#     # TODO: make calibrate compile with fullgraph=True (its caller, run, may change too).
#     centered = x - x.mean(dim=0)
#     with open(path) as f:
#         stats = json.load(f)
#     return centered * torch.tensor(stats["scale"]) + torch.tensor(stats["shift"])
# END STARTER
# BEGIN FAIR stats_dict
# def calibrate(x, stats):
#     return (x - x.mean(dim=0)) * stats["scale"] + stats["shift"]
# END FAIR
# BEGIN FAIR one_tensor
# def calibrate(x, params):
#     centered = x - x.mean(dim=0)
#     return centered * params[0] + params[1]
# END FAIR
# BEGIN WRONG disabled_reader
# @torch.compiler.disable
# def load(path):
#     with open(path) as f:
#         return json.load(f)
#
#
# def calibrate(x, path):
#     stats = load(path)
#     return (x - x.mean(dim=0)) * torch.tensor(stats["scale"]) + torch.tensor(stats["shift"])
# END WRONG
# BEGIN WRONG python_numbers
# def calibrate(x, scale, shift):
#     return (x - x.mean(dim=0)) * torch.tensor(scale) + shift
# END WRONG
# BEGIN WRONG is_compiling_guard
# def calibrate(x, path):
#     centered = x - x.mean(dim=0)
#     if torch.compiler.is_compiling():
#         return centered
#     with open(path) as f:
#         stats = json.load(f)
#     return centered * torch.tensor(stats["scale"]) + torch.tensor(stats["shift"])
# END WRONG


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
    # BEGIN FAIR stats_dict
    # with open(path) as f:
    #     stats = {key: torch.tensor(value) for key, value in json.load(f).items()}
    # return step(x, stats)
    # END FAIR
    # BEGIN FAIR one_tensor
    # with open(path) as f:
    #     stats = json.load(f)
    # params = torch.tensor([stats["scale"], [stats["shift"]] * len(stats["scale"])])
    # return step(x, params)
    # END FAIR
    # BEGIN WRONG python_numbers
    # with open(path) as f:
    #     stats = json.load(f)
    # return step(x, stats["scale"], stats["shift"])
    # END WRONG
    # BEGIN WRONG read_once
    # if not CALIBRATION:  # read the file once, the first time
    #     with open(path) as f:
    #         stats = json.load(f)
    #     CALIBRATION.update(scale=torch.tensor(stats["scale"]), shift=torch.tensor(stats["shift"]))
    # return step(x, CALIBRATION["scale"], CALIBRATION["shift"])
    # END WRONG
    # BEGIN WRONG cached_by_path
    # if path not in READ:
    #     with open(path) as f:
    #         stats = json.load(f)
    #     READ[path] = (torch.tensor(stats["scale"]), torch.tensor(stats["shift"]))
    # return step(x, *READ[path])
    # END WRONG
    # BEGIN WRONG disabled_reader
    # return step(x, path)
    # END WRONG
    # BEGIN WRONG plain_call
    # with open(path) as f:
    #     stats = json.load(f)
    # return calibrate(x, torch.tensor(stats["scale"]), torch.tensor(stats["shift"]))
    # END WRONG
    # BEGIN WRONG is_compiling_guard
    # return step(x, path)
    # END WRONG


def write_calibration(path, scale, shift):
    with open(path, "w") as f:
        json.dump({"scale": scale, "shift": shift}, f)


# BEGIN GRADER
def calls(gen):
    """Four calibration files, each with its own values (one with a shift of exactly 0), then one of
    them, drawn per seed, written again with new values at the same path (the files are updated
    while the job runs), for batches whose number of rows is drawn per seed and stays the same
    within a grading. Each file is written in the grader's scratch folder just before its call."""
    from autograder.sandbox.files import file_at_call

    def values(shift=None):
        scale = (torch.rand(6, generator=gen) + 0.5).tolist()
        return json.dumps({"scale": scale, "shift": torch.randn(1, generator=gen).item() if shift is None else shift})

    rows = int(torch.randint(2, 10, (1,), generator=gen))
    schedule = [(torch.randn(rows, 6, generator=gen), file_at_call(f"calibration_{number}.json", values(0.0 if number == 2 else None)))
                for number in range(4)]
    again = int(torch.randint(0, 4, (1,), generator=gen))
    schedule.append((torch.randn(rows, 6, generator=gen), file_at_call(f"calibration_{again}.json", values())))
    return schedule
# END GRADER


if __name__ == "__main__":
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "calibration.json")
    write_calibration(path, [1.0, 2.0, 0.5, 1.0, 1.0, 3.0], 0.25)
    print(run(torch.compile(calibrate, fullgraph=True, backend="eager"), torch.randn(5, 6), path))

# /// exercise
# format_version = 1
# title = "Compile score once for every temperature"
# syllabus = ["5.1"]
# entry = "score"
# driver = "run"
# compile = { dynamic = false }
# starter_fails = ["recompiles"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles: every new `temperature` fails a guard on its value.",
#   "Dynamo specialises Python floats: each value is a constant baked into a new graph, and each new graph is a full compile.",
#   "Pass the knob as a tensor: tensors are guarded on metadata, not on value (lesson section 5.1).",
#   "In run: return fn(x, torch.tensor(temperature))",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "compile_time"
# min_ratio = 2.0
# repeats = 3
# points = 2
#
# [[requirements]]
# id = "no_recompile"
# text = "No call recompiles `score`, whatever the temperature; compiling the whole schedule takes at most half the starting code's time."
# checks = ["recompiles", "compile_time"]
#
# [[requirements]]
# id = "same_scores"
# text = "`run` returns the scores `score` computes for that temperature, as now."
# checks = ["correct"]
#
# [[fair]]
# name = "as_tensor"
# why = "torch.as_tensor with the input's dtype instead of torch.tensor"
#
# [[fair]]
# name = "full_like_row"
# why = "the knob broadcast as a one-element tensor made from the input (x.new_full)"
#
# [[wrong]]
# name = "back_to_float"
# breaks = "no_recompile"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 0 allowed"
#
# [[wrong]]
# name = "integer_tensor"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Stop `score` from recompiling for every temperature.

`run(fn, x, temperature)` calls the compiled `score` with a Python float that changes on every
call. The grader compiles `score` with dynamic=False, so Dynamo bakes each float into its graph
and every new temperature compiles the whole function again. The grader calls `run` 5 times with
5 temperatures and allows no recompile; it also times the cold compile of the whole schedule
(aot_eager, the time Dynamo spends compiling, fastest of 3 runs each) against the starting code
and wants it at least 2x shorter.
Change `run` only.
"""

import torch

WEIGHTS = [torch.randn(32, 32) / 6 for _ in range(4)]


def score(x, temperature):
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    return torch.softmax(x / temperature, dim=-1)


def run(fn, x, temperature):
    # BEGIN SOLUTION
    return fn(x, torch.tensor(temperature))
    # END SOLUTION
    # BEGIN STARTER
    # return fn(x, temperature)  # TODO: each new temperature compiles `score` again
    # END STARTER
    # BEGIN FAIR as_tensor
    # return fn(x, torch.as_tensor(temperature, dtype=x.dtype))
    # END FAIR
    # BEGIN FAIR full_like_row
    # return fn(x, x.new_full((1,), temperature))
    # END FAIR
    # BEGIN WRONG back_to_float
    # return fn(x, torch.tensor(temperature).item())
    # END WRONG
    # BEGIN WRONG integer_tensor
    # return fn(x, torch.tensor(temperature, dtype=torch.long))
    # END WRONG


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 32, generator=gen), t) for t in (0.5, 0.7, 1.0, 1.4, 2.0)]  # the verdict study's schedule (docs/MEASUREMENTS.md)
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(score, backend="eager", dynamic=False)
    for t in (0.5, 0.7, 1.0):
        run(compiled, torch.randn(4, 32), t)

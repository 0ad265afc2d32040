# /// exercise
# format_version = 1
# title = "A Python float knob recompiles the whole function"
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
    # return fn(x, temperature)  # TODO: a Python float is a constant: each new value recompiles
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 32, generator=gen), t) for t in (0.5, 0.7, 1.0, 1.4, 2.0)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(score, backend="eager", dynamic=False)
    for t in (0.5, 0.7, 1.0):
        run(compiled, torch.randn(4, 32), t)

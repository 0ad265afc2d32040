# Exercise recompile_float_knob: Compile score once for every temperature
# Edit this file, then check it with:  ./course check recompile_float_knob
# Stuck? ./course hint recompile_float_knob   Start over: ./course reset recompile_float_knob
"""Stop `score` from recompiling for every temperature.

`run(fn, x, temperature)` calls the compiled `score` with a Python float that changes on every
call. The grader compiles `score` with dynamic=False, so Dynamo bakes each float into its graph
and every new temperature compiles the whole function again. The grader calls `run` 5 times with
5 temperatures and allows no recompile; it also times the cold compile of the whole schedule
(aot_eager, the time Dynamo spends compiling, fastest of 3 runs each) against the starting code
and wants it at least 2x shorter.
Change `run` only.

What the grader checks:
- No call recompiles `score`, whatever the temperature; compiling the whole schedule takes at most half the starting code's time.
- `run` returns the scores `score` computes for that temperature, as now.
"""

import torch

WEIGHTS = [torch.randn(32, 32) / 6 for _ in range(4)]


def score(x, temperature):
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    return torch.softmax(x / temperature, dim=-1)


def run(fn, x, temperature):
    return fn(x, temperature)  # TODO: each new temperature compiles `score` again


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(score, backend="eager", dynamic=False)
    for t in (0.5, 0.7, 1.0):
        run(compiled, torch.randn(4, 32), t)

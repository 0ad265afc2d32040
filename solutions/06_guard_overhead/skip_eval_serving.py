# /// exercise
# format_version = 1
# title = "Skip guard evaluation after warm-up, not before"
# syllabus = ["6.4"]
# entry = "make_model"
# factory = true
# driver = "run"
# starter_fails = ["stance_calls"]
# hints = [
#   "Run the file: every serving call evaluates all guards, though the warm-up already compiled what serving needs.",
#   "set_stance(skip_guard_eval_unsafe=True) runs only the guards that tell cached entries apart; enter it only once every entry the schedule needs exists.",
#   "Use it as a context manager around the serving calls only; the warm-up calls (float32 and float64) must compile normally (lesson section 6.4).",
#   "if phase == \"serve\": with torch.compiler.set_stance(skip_guard_eval_unsafe=True): return model(x)",
# ]
#
# [[checks]]
# kind = "stance_calls"
# min = 8
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "guard_time"
# min_ratio = 4.0
# repeats = 7
# rounds = 2
# points = 2
# ///
"""Serve with guard evaluation skipped, once the warm-up is done.

The grader calls `run(model, x, phase)` 22 times: 2 "warmup" calls (a float32 and a float64
batch), then 20 "serve" calls that alternate the two dtypes. Make at least 8 serving calls run
under `torch.compiler.set_stance(skip_guard_eval_unsafe=True)`, and keep every answer right: the
stance may not be entered before both dtypes have compiled. The grader also wants a typical
call's cache lookup time (the median over the 22 calls) at least 4x lower than the starting code's.
"""

import torch



class Tower(torch.nn.Module):
    def __init__(self, depth=96):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8, dtype=torch.float64) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x.double()))
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, phase):
    # BEGIN SOLUTION
    if phase == "serve":
        with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
            return model(x)
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # return model(x)  # TODO: after warm-up, every call still evaluates every guard
    # END STARTER


# BEGIN GRADER
def calls(gen):
    dtypes = [torch.float32, torch.float64]
    return ([(torch.randn(2, 8, generator=gen, dtype=d), "warmup") for d in dtypes] +
            [(torch.randn(2, 8, generator=gen, dtype=dtypes[i % 2]), "serve") for i in range(20)])
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(2, 8, dtype=d), phase) for d, phase in ((torch.float32, "warmup"), (torch.float64, "warmup"), (torch.float32, "serve"), (torch.float64, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {}, driver=run))

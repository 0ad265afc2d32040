# /// exercise
# format_version = 1
# title = "Drop the nn.Module guards of a model that never changes"
# syllabus = ["6.2"]
# entry = "make_model"
# factory = true
# submission_may_set = ["guard_filter_fn"]
# starter_fails = ["guards"]
# hints = [
#   "Run the file: it prints how many guards Dynamo checks before every call; most are about the modules.",
#   "This model is never changed after it is built, so guards on its modules only cost time.",
#   "torch.compiler has guard_filter_fn presets; pass one through COMPILE_OPTIONS (lesson section 6.2).",
#   "COMPILE_OPTIONS = {\"guard_filter_fn\": torch.compiler.skip_guard_on_all_nn_modules_unsafe}",
# ]
#
# [[checks]]
# kind = "guards"
# max_kept = 25
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "guard_time"
# min_ratio = 2.0
# repeats = 7
# rounds = 2
# points = 2
# ///
"""Make guard evaluation cheap for a model that never changes.

The grader compiles `make_model()` (32 Linear layers) with the `guard_filter_fn` you put in
`COMPILE_OPTIONS` and calls it 6 times; nothing about the model changes between calls. Keep at
most 25 guards (the default keeps about 300), and cut the profiler's "TorchDynamo Cache Lookup"
time of a typical call (the median) at least 2x against the starting code.
"""

import torch

# BEGIN SOLUTION
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: every guard on every module is checked on every call
# END STARTER


class Tower(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def make_model():
    return Tower()


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(2, 8, generator=gen),) for _ in range(6)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    opts = {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}
    schedule = [(torch.randn(2, 8),) for _ in range(3)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, opts, driver=globals().get("run")))

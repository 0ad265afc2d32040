# /// exercise
# format_version = 1
# title = "Try recursive dict tags before any unsafe guard filter"
# syllabus = ["6.3"]
# entry = "make_model"
# factory = true
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# allow_config = ["use_recursive_dict_tags_for_guards"]
# starter_fails = ["correct", "guards"]
# hints = [
#   "Run the file: after `model.scale` changes, the compiled model still uses the old scale.",
#   "An unsafe guard filter is only safe if nothing it skips ever changes; here something does.",
#   "A safe speed-up keeps every guard and makes checking them cheaper: use_recursive_dict_tags_for_guards (False by default on 2.13) (lesson section 6.3).",
#   "COMPILE_OPTIONS = {\"guard_filter_fn\": None} and torch._dynamo.config.use_recursive_dict_tags_for_guards = True",
# ]
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "guards"
# min_kept_fraction = 1.0
# config = { use_recursive_dict_tags_for_guards = true }
# points = 2
# ///
"""Speed up guards safely: keep them all, check them faster.

The grader calls `run(model, x, scale)` 6 times; `run` changes `model.scale` twice. The starting
code drops the module guards with an unsafe filter, and answers go stale. Keep every guard (no
filter) and turn on the safe fast path for nested modules, a torch._dynamo config key that is
False by default on torch 2.13.
"""

import torch

# BEGIN SOLUTION
import torch._dynamo

COMPILE_OPTIONS = {"guard_filter_fn": None}
torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}  # TODO: unsafe, and scale changes
# END STARTER


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def make_model():
    return Tower()


def run(model, x, scale):
    model.scale = scale  # the grader's schedule reconfigures the model between calls
    return model(x)


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(2, 8, generator=gen), s) for s in (2.0, 2.0, 3.0, 3.0, 2.0, 5.0)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    opts = {"guard_filter_fn": COMPILE_OPTIONS.get("guard_filter_fn")}
    schedule = [(torch.randn(2, 8), s) for s in (2.0, 3.0, 2.0)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, opts, driver=globals().get("run")))

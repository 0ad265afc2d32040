# /// exercise
# format_version = 1
# title = "Tune a served model: one input, few guards, no guard evaluation while serving"
# syllabus = ["6.5"]
# entry = "make_model"
# factory = true
# compile = { dynamic = false }
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# allow_config = ["install_free_tensors", "use_recursive_dict_tags_for_guards"]
# starter_fails = ["guards", "stance_calls"]
# hints = [
#   "Run the file: each graph takes 65 inputs, keeps hundreds of guards, and every serving call evaluates them all.",
#   "Three knobs from this chapter apply, one per problem: graph inputs (6.1), guards on modules that never change (6.2), guard evaluation after warm-up (6.4).",
#   "Mind what must stay guarded: the model branches on the batch size, so a filter that drops tensor guards, or a stance entered before both batch sizes have compiled, gives wrong answers or an error (lesson section 6.5).",
#   "torch._dynamo.config.install_free_tensors = True; COMPILE_OPTIONS = {\"guard_filter_fn\": torch.compiler.skip_guard_on_all_nn_modules_unsafe}; in run, wrap the \"serve\" calls in torch.compiler.set_stance(skip_guard_eval_unsafe=True).",
# ]
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "guards"
# max_inputs = 1
# max_kept = 60
# points = 2
#
# [[checks]]
# kind = "stance_calls"
# min = 8
# points = 1
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "guard_time"
# min_ratio = 2.0
# repeats = 7
# rounds = 2
# points = 2
# ///
"""Put the guard-overhead knobs together for a model that is served unchanged.

The grader compiles `make_model()` (32 Linear layers; a Python branch on the batch size) with the
`guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, phase)` 22 times: 2 "warmup"
calls (batch 1, then batch 4), then 20 "serve" calls that alternate the two batch sizes. The
model's parameters and attributes never change. Make:

- each graph take only the real input (at most 1 graph input);
- at most 60 guards kept, summed over the compiles;
- at least 8 serving calls run under `set_stance(skip_guard_eval_unsafe=True)`;
- every answer right, for both batch sizes;
- a typical call's cache lookup time (the median over the 22 calls) at least 2x lower than the
  starting code's.
"""

import torch

# BEGIN SOLUTION
torch._dynamo.config.install_free_tensors = True
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: every parameter is a graph input, every module guard is kept
# END STARTER


class Server(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 0.5

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        if x.shape[0] == 1:  # one request: nothing to compare it with
            return x * self.scale
        return (x - x.mean(0)) * self.scale  # a batch: centre it first


def make_model():
    return Server()


def run(model, x, phase):
    # BEGIN SOLUTION
    if phase == "serve":
        with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
            return model(x)
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # return model(x)  # TODO: serving calls still evaluate every guard
    # END STARTER


# BEGIN GRADER
def calls(gen):
    sizes = [1, 4]
    return ([(torch.randn(n, 8, generator=gen), "warmup") for n in sizes] +
            [(torch.randn(sizes[i % 2], 8, generator=gen), "serve") for i in range(20)])
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    schedule = [(torch.randn(n, 8), phase) for n, phase in ((1, "warmup"), (4, "warmup"), (1, "serve"), (4, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"dynamic": False, **COMPILE_OPTIONS}, driver=run))  # dynamic=False as the grader compiles it

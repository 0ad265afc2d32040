# /// exercise
# format_version = 1
# title = "Cut what every call of a served model pays before its graph runs"
# syllabus = ["6.5"]
# entry = "make_model"
# factory = true
# compile = { dynamic = false }
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# allow_config = ["install_free_tensors", "use_recursive_dict_tags_for_guards"]
# starter_fails = ["inputs", "guards", "stance_calls"]
# hints = [
#   "Run the file: look at each graph's inputs, at how many guards are kept, and at how many serving calls skip guard evaluation. Each number is a cost that one section of this chapter cuts.",
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
# name = "inputs"
# max_inputs = 1
# points = 1
#
# [[checks]]
# kind = "guards"
# max_kept = 60
# points = 1
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
#
# [[requirements]]
# id = "one_input"
# text = "Each graph takes only the real input `x` (at most 1 graph input): no parameter is gathered before a call."
# checks = ["inputs"]
#
# [[requirements]]
# id = "few_guards"
# text = "At most 60 guards are kept, summed over the compiles (keeping them all keeps over 800)."
# checks = ["guards"]
#
# [[requirements]]
# id = "serving_skips"
# text = "At least 8 serving calls run with guard evaluation skipped, and a typical call's cache lookup (the median over the 22 calls) is at least 2x cheaper than the starting code's."
# checks = ["stance_calls", "guard_time"]
#
# [[requirements]]
# id = "right_answers"
# text = "Every answer is right, for both batch sizes, without an error."
# checks = ["correct"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs the model's compiled code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "tensor_guards"
# why = "keeps only the tensor guards (the preset that keeps the input's shape guard, which tells the two batch sizes apart) instead of skipping the module guards"
#
# [[fair]]
# name = "input_guards_filter"
# why = "a guard filter of one's own that drops every guard on the module (`self...`) and keeps the rest"
#
# [[fair]]
# name = "seen_sizes"
# why = "ignores the phase: a call skips guard evaluation once its batch size has been compiled, which `run` records on the model"
#
# [[wrong]]
# name = "no_free_tensors"
# breaks = "one_input"
# fails = ["inputs"]
# message = "each graph may take at most 1 input"
#
# [[wrong]]
# name = "dict_tags_instead"
# breaks = "few_guards"
# fails = ["guards"]
# message = "at most 60 guards may be kept"
#
# [[wrong]]
# name = "skip_all_guards"
# breaks = "right_answers"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "stance_from_start"
# breaks = "right_answers"
# fails = ["correct"]
# message = "Call 1 of \\d+ did not return"
#
# [[wrong]]
# name = "serving_typo"
# breaks = "serving_skips"
# fails = ["stance_calls"]
# message = "0 of \\d+ calls ran compiled code with guard evaluation skipped"
#
# [[wrong]]
# name = "eager_model"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
# ///
"""Tune a model that a service keeps in memory and never changes.

`Server` has 32 Linear layers and a Python branch on the batch size. The grader builds it with
`make_model()`, compiles it with the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls
`run(model, x, phase)` 22 times: 2 "warmup" calls (batch 1, then batch 4), then 20 "serve" calls
that alternate the two batch sizes. The model's parameters and attributes never change after
`make_model()`. The answers are right already; everything before each graph runs costs too much.
"""

import torch
import torch._dynamo

# BEGIN SOLUTION
torch._dynamo.config.install_free_tensors = True
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END SOLUTION
# BEGIN STARTER
# # TODO: run the file and find every cost this chapter can cut; the answers must stay right.
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END STARTER
# BEGIN FAIR tensor_guards
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe}
# END FAIR
# BEGIN FAIR input_guards_filter
# torch._dynamo.config.install_free_tensors = True
#
#
# def drop_module_guards(entries):
#     return [not entry.name.startswith("self") for entry in entries]
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": drop_module_guards}
# END FAIR
# BEGIN WRONG no_free_tensors
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END WRONG
# BEGIN WRONG dict_tags_instead
# torch._dynamo.config.install_free_tensors = True
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG
# BEGIN WRONG skip_all_guards
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe}
# END WRONG


class Server(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 0.5
        # BEGIN FAIR seen_sizes
        # self.compiled_sizes = set()  # per model: a fresh model has no compiled entries yet
        # END FAIR

    # BEGIN WRONG eager_model
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
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
    # return model(x)
    # END STARTER
    # BEGIN FAIR seen_sizes
    # if x.shape[0] in model.compiled_sizes:
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # model.compiled_sizes.add(x.shape[0])
    # return model(x)
    # END FAIR
    # BEGIN WRONG stance_from_start
    # with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #     return model(x)
    # END WRONG
    # BEGIN WRONG serving_typo
    # if phase == "serving":
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # return model(x)
    # END WRONG


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

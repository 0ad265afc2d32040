# /// exercise
# format_version = 1
# title = "Serve warm calls without paying for their guards"
# syllabus = ["6.4"]
# entry = "make_model"
# factory = true
# driver = "run"
# starter_fails = ["stance_calls"]
# hints = [
#   "Run the file: every serving call evaluates all guards, though the warm-up already compiled every graph that serving needs.",
#   "Lesson section 6.4 has a compiler stance that runs only the guards that tell cached entries apart. Read what happens when a call under it would need a new compile.",
#   "Enter the stance only once every entry the schedule needs exists: here that is after both dtypes have been seen. A `with` block around the serving calls keeps it out of the warm-up (on torch 2.13, not a decorator: `@set_stance(skip_guard_eval_unsafe=True)` drops the skip and runs every guard).",
#   "if phase == \"serve\":\n    with torch.compiler.set_stance(skip_guard_eval_unsafe=True):\n        return model(x)\nreturn model(x)",
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
#
# [[requirements]]
# id = "serving_skips"
# text = "At least 8 of the 20 serving calls run with guard evaluation skipped."
# checks = ["stance_calls"]
#
# [[requirements]]
# id = "typical_call_cheap"
# text = "A typical call's cache lookup (the median over the 22 calls) is at least 4x cheaper than the starting code's."
# checks = ["guard_time"]
#
# [[requirements]]
# id = "right_answers"
# text = "Every call, warm-up and serving, of either dtype, gives the right answer without an error."
# checks = ["correct"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs the model's compiled code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "seen_dtypes"
# why = "ignores the phase: a call skips guard evaluation once its dtype has been compiled for this model, which `run` records on the model"
#
# [[fair]]
# name = "warm_every_dtype"
# why = "does its own warm-up: the first call also compiles the other dtype, and every later call skips guard evaluation"
#
# [[fair]]
# name = "stance_switched_once"
# why = "calls set_stance as a plain function on the first serving call and leaves it on, as a server that is done warming up would"
#
# [[wrong]]
# name = "serving_typo"
# breaks = "serving_skips"
# fails = ["stance_calls"]
# message = "0 of \\d+ calls ran compiled code with guard evaluation skipped"
#
# [[wrong]]
# name = "eager_on_recompile"
# breaks = "serving_skips"
# fails = ["stance_calls"]
# message = "0 of \\d+ calls ran compiled code with guard evaluation skipped"
#
# [[wrong]]
# name = "decorated_serve"
# breaks = "serving_skips"
# fails = ["stance_calls"]
# message = "0 of \\d+ calls ran compiled code with guard evaluation skipped"
#
# [[wrong]]
# name = "one_dtype_only"
# breaks = "typical_call_cheap"
# fails = ["guard_time"]
# message = "needs 4.0x"
#
# [[wrong]]
# name = "stance_from_start"
# breaks = "right_answers"
# fails = ["correct"]
# message = "Call 1 of \\d+ did not return"
#
# [[wrong]]
# name = "float32_requests"
# breaks = "right_answers"
# fails = ["correct"]
# message = "differs from the reference \\(largest difference"
#
# [[wrong]]
# name = "eager_model"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
# ///
"""Make the serving calls of a warmed-up model cheaper before their graphs run.

`Tower` is a 96-layer model that takes float32 and float64 batches. The grader builds it with
`make_model()`, compiles it, and calls `run(model, x, phase)` 22 times: 2 "warmup" calls (a
float32 batch, then a float64 one), then 20 "serve" calls that alternate the two dtypes. Nothing
about the model changes after the warm-up, yet every serving call still evaluates every guard.
"""

import torch


class Tower(torch.nn.Module):
    def __init__(self, depth=96):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8, dtype=torch.float64) for _ in range(depth)])
        self.scale = 2.0
        # BEGIN FAIR seen_dtypes
        # self.compiled_dtypes = set()  # per model: a fresh model has no compiled entries yet
        # END FAIR
        # BEGIN FAIR warm_every_dtype
        # self.warmed_up = []
        # END FAIR

    # BEGIN WRONG eager_model
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        x = x.double()
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
        return x * self.scale


def make_model():
    return Tower()


# BEGIN WRONG decorated_serve
# @torch.compiler.set_stance(skip_guard_eval_unsafe=True)  # on torch 2.13 the decorator form drops skip_guard_eval_unsafe
# def serve(model, x):
#     return model(x)
# END WRONG
def run(model, x, phase):
    # BEGIN SOLUTION
    if phase == "serve":
        with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
            return model(x)
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: the serving calls pay for every guard, though the warm-up compiled all they need.
    # return model(x)
    # END STARTER
    # BEGIN FAIR seen_dtypes
    # if x.dtype in model.compiled_dtypes:
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # model.compiled_dtypes.add(x.dtype)
    # return model(x)
    # END FAIR
    # BEGIN FAIR warm_every_dtype
    # if model.warmed_up:
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # model.warmed_up.append(True)
    # model(x.double() if x.dtype == torch.float32 else x.float())
    # return model(x)
    # END FAIR
    # BEGIN FAIR stance_switched_once
    # if phase == "serve" and not getattr(model, "serving", False):
    #     torch.compiler.set_stance(skip_guard_eval_unsafe=True)  # the warm-up is over: skip guards from now on
    #     model.serving = True
    # return model(x)
    # END FAIR
    # BEGIN WRONG decorated_serve
    # return serve(model, x) if phase == "serve" else model(x)
    # END WRONG
    # BEGIN WRONG serving_typo
    # if phase == "serving":
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # return model(x)
    # END WRONG
    # BEGIN WRONG eager_on_recompile
    # if phase == "serve":
    #     with torch.compiler.set_stance("eager_on_recompile"):
    #         return model(x)
    # return model(x)
    # END WRONG
    # BEGIN WRONG one_dtype_only
    # if phase == "serve" and x.dtype == torch.float64:
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # return model(x)
    # END WRONG
    # BEGIN WRONG stance_from_start
    # with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #     return model(x)
    # END WRONG
    # BEGIN WRONG float32_requests
    # x = x.float()  # every request in one dtype: one entry, whose guards the serving calls skip
    # if phase == "serve":
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # return model(x)
    # END WRONG


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

# /// exercise
# format_version = 1
# title = "Make each small-batch call of a many-module model faster, not only its guard check"
# syllabus = ["6.5"]
# entry = "make_model"
# factory = true
# compile = { dynamic = false }
# driver = "run"
# submission_may_set = ["guard_filter_fn"]
# allow_config = ["install_free_tensors", "use_recursive_dict_tags_for_guards"]
# starter_fails = ["inputs"]  # and its speed check, which runs only once the structure passes (docs/MEASUREMENTS.md)
# hints = [
#   "Run the file: it prints how many guards each compile keeps and how many inputs each graph takes, then times a warm call eagerly and compiled with Inductor. The arithmetic of a call is a few microseconds; the compiled call costs far more.",
#   "Two costs come before the graph runs (lesson 6, introduction): gathering every parameter as a graph input (6.1), and evaluating thousands of guards on the model's 386 modules (6.2 to 6.4). The grader asks for the first to go, and times the whole call for the second.",
#   "Every guard knob of this chapter cuts the second cost in its own way: keeping every guard and checking unchanged modules faster (6.3), dropping the guards on modules (6.2), or skipping guard evaluation while serving (6.4). Half of these modules are the file's own classes, and the model branches on the batch size: the guard on the input's shape must stay.",
#   "torch._dynamo.config.install_free_tensors = True and COMPILE_OPTIONS = {\"guard_filter_fn\": torch.compiler.skip_guard_on_all_nn_modules_unsafe}.",
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
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "speed"
# name = "fast"
# inputs = "speed_calls"
# against = "starter"
# min_ratio = { cpu = 1.6, cuda = 1.6 }
# eager_min_ratio = { cpu = 8.0, cuda = 4.0 }
# warmup = 3
# repeats = 15
# points = 3
#
# [[requirements]]
# id = "right_answers"
# text = "Every answer is right, for both batch sizes, without an error."
# checks = ["correct"]
#
# [[requirements]]
# id = "one_input"
# text = "Each graph takes only the real input `x` (at most 1 graph input): no parameter is gathered before a call."
# checks = ["inputs"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs the model's compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "fast"
# text = "A serving run through `run` (2 warm-up calls, then 62 serving calls of 1 or 4 rows), the model compiled with Inductor, is at least 1.6x faster than the starting code compiled the same way, and at least 8x faster than your code run eagerly (4x on a CUDA GPU)."
# checks = ["fast"]
#
# [[fair]]
# name = "every_guard_kept"
# why = "keeps every guard and checks them on the fast path of lesson 6.3 (recursive dict tags), which skips a module tree that has not changed since the last call"
#
# [[fair]]
# name = "stance_after_warmup"
# why = "keeps every guard but skips their evaluation on the serving calls (lesson 6.4), once the warm-up has compiled both batch sizes"
#
# [[fair]]
# name = "tensor_guards"
# why = "keeps only the tensor guards (the preset that keeps the input's shape guard, which tells the two batch sizes apart) instead of skipping the module guards"
#
# [[wrong]]
# name = "free_tensors_only"
# breaks = "fast"
# fails = ["fast"]
# message = "than the compiled starter \\(needs 1.6x faster on cpu\\)"
#
# [[wrong]]
# name = "builtin_modules_preset"
# breaks = "fast"
# fails = ["fast"]
# message = "than the compiled starter \\(needs 1.6x faster on cpu\\)"
#
# [[wrong]]
# name = "no_free_tensors"
# breaks = "one_input"
# fails = ["inputs"]
# message = "each graph may take at most 1 input"
#
# [[wrong]]
# name = "skip_all_guards"
# breaks = "right_answers"
# fails = ["correct"]
# message = "differs from the reference|did not return"
#
# [[wrong]]
# name = "stance_from_start"
# breaks = "right_answers"
# fails = ["correct"]
# message = "Call 1 of \\d+ did not return"
#
# [[wrong]]
# name = "eager_model"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
# ///
"""Serve a model of many small modules on batches of one and four rows.

`FeatureTower` is 96 small residual blocks, each a per-feature scale and shift (`Affine`), a
`Tanh` and a `Dropout` that is off while serving: 386 modules and 192 parameters for a few
thousand multiply-adds a row. The grader builds it with `make_model()`, compiles it with Inductor
and the `guard_filter_fn` in `COMPILE_OPTIONS`, and calls `run(model, x, phase)` 22 times: 2
"warmup" calls (batch 1, then batch 4), then 20 "serve" calls that alternate the two batch sizes.
Nothing about the model changes after `make_model()`. The answers are right, and compiled the
model is already several times faster than eagerly, but most of a compiled call is spent before
its graph runs.
"""

import torch
import torch._dynamo

# BEGIN SOLUTION
torch._dynamo.config.install_free_tensors = True
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END SOLUTION
# BEGIN STARTER
# # TODO: a compiled call pays far more before its graph runs than in it. Cut that, keep every answer right.
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END STARTER
# BEGIN FAIR every_guard_kept
# torch._dynamo.config.install_free_tensors = True
# torch._dynamo.config.use_recursive_dict_tags_for_guards = True
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END FAIR
# BEGIN FAIR stance_after_warmup
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END FAIR
# BEGIN FAIR tensor_guards
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe}
# END FAIR
# BEGIN WRONG free_tensors_only
# torch._dynamo.config.install_free_tensors = True  # one graph input: surely the call is cheap now
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG
# BEGIN WRONG builtin_modules_preset
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe}
# END WRONG
# BEGIN WRONG no_free_tensors
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END WRONG
# BEGIN WRONG skip_all_guards
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe}
# END WRONG
# BEGIN WRONG stance_from_start
# torch._dynamo.config.install_free_tensors = True
# COMPILE_OPTIONS = {"guard_filter_fn": None}
# END WRONG

WIDTH = 16  # features per row


class Affine(torch.nn.Module):
    """A learned scale and shift per feature."""

    def __init__(self, weights, width=WIDTH):
        super().__init__()
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(width, generator=weights))
        self.bias = torch.nn.Parameter(0.1 * torch.randn(width, generator=weights))

    def forward(self, x):
        return x * self.weight + self.bias


class SoftClip(torch.nn.Module):
    """Passes small values through and bends large ones towards +-limit."""

    def __init__(self, limit=3.0):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        return self.limit * torch.tanh(x / self.limit)


class Block(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.affine = Affine(weights)
        self.act = SoftClip()
        self.drop = torch.nn.Dropout(0.1)  # training only: make_model serves the model in eval mode

    def forward(self, x):
        return x + self.drop(self.act(self.affine(x)))


class FeatureTower(torch.nn.Module):
    def __init__(self, weights, depth=96):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(weights) for _ in range(depth)])
        self.scale = 0.1

    # BEGIN WRONG eager_model
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        if x.shape[0] == 1:  # one request: nothing to compare it with
            return x * self.scale
        return (x - x.mean(0)) * self.scale  # a batch: centre it first


def make_model():
    weights = torch.Generator().manual_seed(2026)  # stands in for loading a checkpoint: every build has the same weights
    return FeatureTower(weights).eval()


def run(model, x, phase):
    # BEGIN SOLUTION
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # return model(x)
    # END STARTER
    # BEGIN FAIR stance_after_warmup
    # if phase == "serve":
    #     with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #         return model(x)
    # return model(x)
    # END FAIR
    # BEGIN WRONG stance_from_start
    # with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    #     return model(x)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Two warm-up calls (one row, then four), then 20 serving calls alternating the two sizes,
    rows drawn per seed at a scale drawn per seed."""
    sizes = [1, 4]
    spread = 0.5 + 2.0 * float(torch.rand(1, generator=gen))
    return ([(spread * torch.randn(n, WIDTH, generator=gen), "warmup") for n in sizes] +
            [(spread * torch.randn(sizes[i % 2], WIDTH, generator=gen), "serve") for i in range(20)])


def speed_calls(gen):
    """What the speed check times: a longer serving run of the same kind, 2 warm-up calls then 62
    serving calls, so that the timing is the serving calls' (about 30 ms a pass compiled)."""
    sizes = [1, 4]
    return ([(torch.randn(n, WIDTH, generator=gen), "warmup") for n in sizes] +
            [(torch.randn(sizes[i % 2], WIDTH, generator=gen), "serve") for i in range(62)])
# END GRADER


if __name__ == "__main__":
    import time

    from autograder.lab import guard_report

    schedule = [(torch.randn(n, WIDTH), phase) for n, phase in ((1, "warmup"), (4, "warmup"), (1, "serve"), (4, "serve"))]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"dynamic": False, **COMPILE_OPTIONS}, driver=run))  # dynamic=False as the grader compiles it

    torch.set_num_threads(1)  # as the grader times it
    model = make_model()
    compiled = torch.compile(model, dynamic=False, options=COMPILE_OPTIONS)  # Inductor
    with torch.no_grad():
        for x, phase in schedule:
            run(compiled, x, phase)  # compiles both batch sizes
        for name, fn in (("eager", model), ("compiled", compiled)):
            started = time.perf_counter()
            for _ in range(50):
                for x, phase in schedule:
                    run(fn, x, phase)
            print(f"{name}: {1e6 * (time.perf_counter() - started) / (50 * len(schedule)):.0f} us a call")

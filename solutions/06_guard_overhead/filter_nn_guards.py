# /// exercise
# format_version = 1
# title = "Cheap guards for a model that never changes, at every batch size"
# syllabus = ["6.2"]
# entry = "make_model"
# factory = true
# submission_may_set = ["guard_filter_fn"]
# starter_fails = ["guards"]
# hints = [
#   "Run the file: it prints how many guards each compile keeps (about 400), and the kinds of the guards of the first compile. Almost all of them are about the modules.",
#   "This model is never changed after it is built, so the guards on its modules only cost time: a guard_filter_fn can drop them (lesson section 6.2). But the batch size does change, and the graph of one size is not right for another.",
#   "Choose a filter that drops the module guards and keeps the guards on the input tensor: a preset of torch.compiler does exactly that, and so does one that keeps only the tensor guards. A filter that drops everything runs the 2-row graph on a 5-row batch.",
#   "COMPILE_OPTIONS = {\"guard_filter_fn\": torch.compiler.skip_guard_on_all_nn_modules_unsafe}",
# ]
#
# [[checks]]
# kind = "guards"
# max_kept = 66
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "guard_time"
# min_ratio = 2.0
# repeats = 7
# rounds = 2
# points = 2
#
# [[requirements]]
# id = "cheap_guards"
# text = "Calls are cheap to guard: at most 66 guards are kept, summed over every compile of the schedule (the default keeps about 1200), and a typical call's guard evaluation (the median \"TorchDynamo Cache Lookup\" time) takes at most half the time the starting code's does."
# checks = ["guards", "guard_time"]
#
# [[requirements]]
# id = "right_answers"
# text = "Every call returns the model's answer, whatever its batch size (one row included)."
# checks = ["correct"]
#
# [[fair]]
# name = "tensor_guards"
# why = "the preset that keeps only the guards on tensors"
#
# [[fair]]
# name = "input_only"
# why = "a filter of one's own that keeps the guards on the input `x` and the shape guards, and nothing on the modules"
#
# [[wrong]]
# name = "skip_everything"
# breaks = "right_answers"
# fails = ["correct"]
# message = "did not return|differs from the reference|has shape"
#
# [[wrong]]
# name = "portable"
# breaks = "cheap_guards"
# fails = ["guards"]
# message = "at most 66 guards may be kept"
#
# [[wrong]]
# name = "inbuilt_only"
# breaks = "cheap_guards"
# fails = ["guards"]
# message = "at most 66 guards may be kept"
#
# [[wrong]]
# name = "eager_forward"
# breaks = "cheap_guards"
# fails = ["guards"]
# message = "No graph was compiled"
# ///
"""Make guard evaluation cheap for a served model that never changes.

The grader compiles `make_model()` (32 Linear layers) with the `guard_filter_fn` in
`COMPILE_OPTIONS` and calls it on batches of several sizes; nothing about the model changes
between calls. Run the file: every compile keeps hundreds of guards, and every call evaluates
the guards of the entries it tries before its graph runs.
"""

import torch

# BEGIN SOLUTION
COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"guard_filter_fn": None}  # TODO: nothing about the model ever changes; make its calls cheaper to guard
# END STARTER
# BEGIN FAIR tensor_guards
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe}
# END FAIR
# BEGIN FAIR input_only
# def keep_input_guards(entries):
#     return [entry.guard_type in ("TENSOR_MATCH", "SHAPE_ENV") and not entry.name.startswith("self") for entry in entries]
#
#
# COMPILE_OPTIONS = {"guard_filter_fn": keep_input_guards}
# END FAIR
# BEGIN WRONG skip_everything
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_all_guards_unsafe}
# END WRONG
# BEGIN WRONG portable
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.keep_portable_guards_unsafe}
# END WRONG
# BEGIN WRONG inbuilt_only
# COMPILE_OPTIONS = {"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe}
# END WRONG


class Tower(torch.nn.Module):
    def __init__(self, depth=32):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
        self.scale = 2.0

    # BEGIN WRONG eager_forward
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        for layer in self.layers:
            x = x + 0.1 * torch.relu(layer(x))  # residual: every answer depends on its request
        heads = (x * self.scale).view(x.shape[0], 2, 4)  # two heads of four features
        return heads.sum(dim=-1)


def make_model():
    return Tower()


# BEGIN GRADER
def calls(gen):
    """Eight calls: two of 2 rows (the size the file shows), then larger batches drawn per seed,
    a one-row batch at a place drawn per seed, and 2 rows again: three compiles in all (2 rows,
    a dynamic batch size, one row)."""
    larger = (torch.randint(3, 13, (4,), generator=gen)).tolist()
    sizes = [2, 2, larger[0], larger[0], larger[1], 2, larger[2], larger[3]]
    sizes[int(torch.randint(3, 8, (1,), generator=gen))] = 1
    return [(torch.randn(n, 8, generator=gen),) for n in sizes]
# END GRADER


if __name__ == "__main__":
    from collections import Counter

    from autograder.lab import guard_report

    def kinds(entries):  # keeps every guard, and prints what the first compile offered
        if not kinds.shown:
            print("guards of the first compile, by kind:", Counter(entry.guard_type for entry in entries).most_common(6))
            kinds.shown = True
        chosen = COMPILE_OPTIONS.get("guard_filter_fn")
        return chosen(entries) if chosen else [True] * len(entries)

    kinds.shown = False
    schedule = [(torch.randn(n, 8),) for n in (2, 2, 5, 1)]  # a few calls like the grader's
    print(guard_report(make_model(), schedule, {"guard_filter_fn": kinds}))

# /// exercise
# format_version = 1
# title = "Compile a training step that reports its loss"
# syllabus = ["2.2.3"]
# entry = "train_step"
# compile = { fullgraph = true }
# # The one configuration change allowed: reorderable_logging_functions may gain print.
# config_may_add = { reorderable_logging_functions = ["print"] }
# starter_fails = ["compiles", "message"]
# hints = [
#   "Run the file: fullgraph=True stops at the print with \"Failed to trace builtin operator\".",
#   "Deleting the print, or hiding it behind `if not torch.compiler.is_compiling()`, makes the graph whole but loses the line, and this task keeps it: the grader compares what each compiled call prints with what the code prints without the compiler.",
#   "Lesson section 2.2.3: Dynamo can move a print to after the graph if print is in torch._dynamo.config.reorderable_logging_functions. Its tensor arguments are then printed with their values at the end of the call. Which tensor of this print changes after the print?",
#   "Add `torch._dynamo.config.reorderable_logging_functions.add(print)` after `import torch`, and print a copy of the running loss taken before the update: `print(\"loss:\", loss, \"running:\", running.clone())`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "output"
# name = "message"
# stream = "stdout"
# expect = "reference"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "one_graph"
# text = "`train_step` compiles with `fullgraph=True` into one graph that serves every call."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "same_line"
# text = "Each call prints exactly the line it prints now: the loss, and the running loss as it was before this step updated it."
# checks = ["message"]
#
# [[requirements]]
# id = "same_results"
# text = "It returns `(pred, loss, running)` as now, with `running` updated by this step's loss."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "out_of_place"
# why = "the update makes a new tensor instead of changing `running` in place, so the printed input never changes"
#
# [[fair]]
# name = "snapshot_first"
# why = "a copy of the running loss taken first, with arithmetic instead of clone(), then printed"
#
# [[fair]]
# name = "builtins_print_lerp"
# why = "print registered by its name in the builtins module, a clone printed, and the update written as lerp_"
#
# [[wrong]]
# name = "python_number"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*reorder"
#
# [[wrong]]
# name = "reordered_alias"
# breaks = "same_line"
# fails = ["message"]
# message = "Call 1 of \\d+ printed \\['loss: tensor\\([^)]*\\) running: tensor\\([^)]*\\)'\\]; the reference printed"
#
# [[wrong]]
# name = "detached_alias"
# breaks = "same_line"
# fails = ["message"]
# message = "printed \\['loss: tensor\\([^)]*\\) running: tensor\\([^)]*\\)'\\]; the reference printed"
#
# [[wrong]]
# name = "copy_back_after"
# breaks = "same_line"
# fails = ["message"]
# message = "printed \\['loss: tensor\\([^)]*\\) running: tensor\\([^)]*\\)'\\]; the reference printed"
#
# [[wrong]]
# name = "deleted_print"
# breaks = "same_line"
# fails = ["message"]
# message = "The message is gone"
#
# [[wrong]]
# name = "update_lost"
# breaks = "same_results"
# fails = ["correct"]
# message = "output\\[2\\] differs from the reference"
#
# [[wrong]]
# name = "is_compiling_print"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "is_compiling"
# ///
"""Compile a training step that prints its loss, and keep the line it prints.

`train_step` prints this step's loss and the running loss, then folds the loss into the running
loss (an exponential moving average, updated in place), and the people who run it rely on that
line. With `fullgraph=True` the print breaks the graph. Only one configuration change is allowed:
`torch._dynamo.config.reorderable_logging_functions` may gain `print`; any other change to
`torch._dynamo.config` fails the grade.
"""

import torch

# BEGIN SOLUTION
torch._dynamo.config.reorderable_logging_functions.add(print)
# END SOLUTION
# BEGIN FAIR out_of_place
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END FAIR
# BEGIN FAIR snapshot_first
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END FAIR
# BEGIN FAIR builtins_print_lerp
# import builtins
#
# torch._dynamo.config.reorderable_logging_functions.add(builtins.print)
# END FAIR
# BEGIN WRONG python_number
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END WRONG
# BEGIN WRONG reordered_alias
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END WRONG
# BEGIN WRONG detached_alias
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END WRONG
# BEGIN WRONG copy_back_after
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END WRONG
# BEGIN WRONG update_lost
# torch._dynamo.config.reorderable_logging_functions.add(print)
# END WRONG


def train_step(x, target, weight, running):
    # BEGIN SOLUTION
    pred = torch.tanh(x @ weight)
    loss = (pred - target).pow(2).mean()
    print("loss:", loss, "running:", running.clone())
    running.mul_(0.9).add_(0.1 * loss)
    return pred, loss, running
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make train_step compile with fullgraph=True, and keep the line it prints.
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", running)
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END STARTER
    # BEGIN FAIR out_of_place
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", running)
    # return pred, loss, 0.9 * running + 0.1 * loss
    # END FAIR
    # BEGIN FAIR snapshot_first
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # before = running * 1.0
    # running.mul_(0.9).add_(0.1 * loss)
    # print("loss:", loss, "running:", before)
    # return pred, loss, running
    # END FAIR
    # BEGIN FAIR builtins_print_lerp
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # previous = running.clone()
    # print("loss:", loss, "running:", previous)
    # running.lerp_(loss, 0.1)
    # return pred, loss, running
    # END FAIR
    # BEGIN WRONG python_number
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", float(running))
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG reordered_alias
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", running)
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG detached_alias
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", running.detach())
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG copy_back_after
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # updated = 0.9 * running + 0.1 * loss
    # print("loss:", loss, "running:", running)
    # running.copy_(updated)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG deleted_print
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG update_lost
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # print("loss:", loss, "running:", running)
    # return pred, loss, running
    # END WRONG
    # BEGIN WRONG is_compiling_print
    # pred = torch.tanh(x @ weight)
    # loss = (pred - target).pow(2).mean()
    # if not torch.compiler.is_compiling():
    #     print("loss:", loss, "running:", running)
    # running.mul_(0.9).add_(0.1 * loss)
    # return pred, loss, running
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Steps from running losses drawn per seed, well away from the step's own loss, so that the
    value before the update and the value after it print differently."""
    weight = torch.randn(6, 3, generator=gen)

    def step():
        running = torch.rand((), generator=gen) * 4 + 2
        return torch.randn(5, 6, generator=gen), torch.randn(5, 3, generator=gen), weight, running

    return [step() for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(train_step, fullgraph=True, backend="eager")
    running = torch.tensor(1.0)
    for _ in range(2):
        compiled(torch.randn(5, 6), torch.randn(5, 3), torch.randn(6, 3), running)

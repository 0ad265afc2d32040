# /// exercise
# format_version = 1
# title = "Keep the progress message without breaking the graph"
# syllabus = ["2.2.3"]
# entry = "train_step"
# compile = { fullgraph = true }
# # The one configuration change allowed: reorderable_logging_functions may gain print.
# config_may_add = { reorderable_logging_functions = ["print"] }
# starter_fails = ["compiles", "message"]
# hints = [
#   "Run the file: fullgraph=True stops at the print with \"Failed to trace builtin operator\".",
#   "Deleting the print, or hiding it behind `if not torch.compiler.is_compiling()`, makes the graph whole but loses the message, and this task keeps it: the grader compares what each compiled call prints with what the eager code prints.",
#   "Lesson section 2.2.3: Dynamo can move a print to after the graph, if you list print in torch._dynamo.config.reorderable_logging_functions. Its tensor arguments are then printed with their values from the graph.",
#   "Add `torch._dynamo.config.reorderable_logging_functions.add(print)` at the top of the file, after `import torch`, and keep the print as it is.",
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
# ///
"""Compile a training step that prints its loss, and keep the print.

`train_step` prints the loss of every step, and the people who run it rely on that line. With
`fullgraph=True` the print breaks the graph. Make `train_step` compile into one graph while each
call still prints exactly what it prints without the compiler. Only one configuration change is
allowed: `torch._dynamo.config.reorderable_logging_functions` may gain `print`; any other change
to `torch._dynamo.config` fails the grade.
"""

import torch

# BEGIN SOLUTION
torch._dynamo.config.reorderable_logging_functions.add(print)
# END SOLUTION


def train_step(x, target, weight):
    pred = torch.tanh(x @ weight)
    loss = (pred - target).pow(2).mean()
    # BEGIN SOLUTION
    print("loss:", loss)
    # END SOLUTION
    # BEGIN STARTER
    # print("loss:", loss)  # TODO: this print breaks the graph, and the message must stay
    # END STARTER
    return pred, loss


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(6, 3, generator=gen)
    return [(torch.randn(5, 6, generator=gen), torch.randn(5, 3, generator=gen), weight) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(train_step, fullgraph=True, backend="eager")
    compiled(torch.randn(5, 6), torch.randn(5, 3), torch.randn(6, 3))

# /// exercise
# format_version = 1
# title = "Hand the compiled step a list, not an iterator"
# syllabus = ["2.1.1"]
# entry = "accumulate"
# # The grader calls train(compiled_accumulate, batches, weight): your loop around the compiled step.
# driver = "train"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the line of accumulate that calls next(stream).",
#   "Dynamo cannot trace into an iterator object that comes in as an argument (\"Missing tp_iternext\"): it has no idea what the iterator will produce. A list of tensors it can read item by item.",
#   "Strategy 1 (lesson section 2.1.1): rewrite with what Dynamo supports. Let the eager loop in train pull the micro-batches out of the iterator, and pass them to the compiled step as a list.",
#   "In train: `chunk = [next(stream) for _ in range(MICRO)]` and `step(chunk, weight)`; in accumulate: `for x, y in chunk:` instead of calling next().",
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
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Accumulate the loss over micro-batches in one compiled graph.

`accumulate` (the compiled step) averages a squared-error loss over `MICRO` micro-batches. `train`,
the eager loop around it, hands it an iterator over the batches, and the step pulls micro-batches
out with `next()`. The grader compiles `accumulate` with `fullgraph=True` and calls
`train(compiled_accumulate, batches, weight)`. Make the step compile into one graph that serves
every call, with the same losses as before.
"""

import torch

MICRO = 3  # micro-batches per optimizer step


def accumulate(chunk, weight):
    total = 0.0
    # BEGIN SOLUTION
    for x, y in chunk:
        total = total + ((x @ weight - y) ** 2).mean()
    # END SOLUTION
    # BEGIN STARTER
    # for _ in range(MICRO):
    #     x, y = next(chunk)  # TODO: an iterator argument cannot be traced; take the micro-batches as a list
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END STARTER
    return total / MICRO


def train(step, batches, weight):
    """The eager loop: one loss per group of MICRO batches. `step` is the compiled accumulate."""
    stream = iter(batches)
    losses = []
    for _ in range(len(batches) // MICRO):
        # BEGIN SOLUTION
        chunk = [next(stream) for _ in range(MICRO)]
        losses.append(step(chunk, weight))
        # END SOLUTION
        # BEGIN STARTER
        # losses.append(step(stream, weight))  # TODO: pull the micro-batches here and pass a list
        # END STARTER
    return torch.stack(losses)


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(8, 2, generator=gen)
    return [([(torch.randn(4, 8, generator=gen), torch.randn(4, 2, generator=gen)) for _ in range(2 * MICRO)], weight)
            for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    batches = [(torch.randn(4, 8), torch.randn(4, 2)) for _ in range(2 * MICRO)]
    print(train(torch.compile(accumulate, fullgraph=True, backend="eager"), batches, torch.randn(8, 2)))

# /// exercise
# format_version = 1
# title = "Accumulate micro-batch losses in one compiled graph"
# syllabus = ["2.1.1"]
# entry = "accumulate"
# # The grader calls train(compiled_accumulate, batches, weight): your loop around the compiled step.
# driver = "train"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True stops at the line of accumulate that calls next(chunk), with \"Missing tp_iternext\".",
#   "Dynamo can call next() on an iterator it created itself while tracing, but not on an iterator object passed in as an argument: it cannot know what that object will produce. A list (or tuple) of tensors it can read item by item.",
#   "Strategy 1 (lesson section 2.1.1): rewrite with what Dynamo supports. Let the eager loop in train pull each group of MICRO micro-batches out of the iterator, and hand the compiled step that group as a list.",
#   "In train: `chunk = [next(stream) for _ in range(MICRO)]` and `losses.append(step(chunk, weight))`; in accumulate: `for x, y in chunk:` instead of calling next().",
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
#
# [[requirements]]
# id = "one_graph"
# text = "`accumulate` compiles with `fullgraph=True`: no graph break."
# checks = ["compiles"]
#
# [[requirements]]
# id = "one_graph_serves"
# text = "One graph serves every step of every loop: no recompile, whatever the number of batches in the loop."
# checks = ["graphs"]
#
# [[requirements]]
# id = "same_losses"
# text = "`train` returns one loss per full group of `MICRO` batches, in order, the same losses as now; a remainder of fewer than `MICRO` batches at the end makes no loss."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Every step runs compiled: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "own_iterator"
# why = "the step keeps its next() calls, on an iterator it makes itself from the list (Dynamo traces those)"
#
# [[fair]]
# name = "stacked"
# why = "the loop stacks each group into two tensors and the step computes the group's losses in one batched expression"
#
# [[fair]]
# name = "islice_tuple"
# why = "the loop takes each group with itertools.islice, as a tuple"
#
# [[wrong]]
# name = "fresh_iterator"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "Missing tp_iternext"
#
# [[wrong]]
# name = "offset_into_list"
# breaks = "one_graph_serves"
# fails = ["graphs"]
# message = "graph\\(s\\) compiled over \\d+ call\\(s\\); expected exactly 1.*recompiles"
#
# [[wrong]]
# name = "ragged_tail"
# breaks = "same_losses"
# fails = ["correct"]
# message = "has shape \\(\\d+,\\), expected \\(\\d+,\\)"
#
# [[wrong]]
# name = "disabled_pull"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
#
# [[wrong]]
# name = "token_step"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "did not come from that call"
#
# [[wrong]]
# name = "first_group_only"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "part of what your `train` returned came from the compiled"
#
# [[wrong]]
# name = "plain_call"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "ran compiled code|did compiled code run"
# ///
"""Accumulate the loss over micro-batches in one compiled graph.

`accumulate` (the compiled step) averages a squared-error loss over `MICRO` micro-batches. `train`,
the eager loop around it, hands it an iterator over the batches, and the step pulls micro-batches
out with `next()`. The grader compiles `accumulate` with `fullgraph=True` and calls
`train(compiled_accumulate, batches, weight)` with loops of different lengths. You may change
`accumulate` and `train` together.
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
    #     x, y = next(chunk)  # TODO: fullgraph=True stops here. What can Dynamo not see into?
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END STARTER
    # BEGIN FAIR own_iterator
    # items = iter(chunk)
    # for _ in range(MICRO):
    #     x, y = next(items)
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END FAIR
    # BEGIN FAIR stacked
    # xs, ys = chunk
    # total = ((xs @ weight - ys) ** 2).mean(dim=(1, 2)).sum()
    # END FAIR
    # BEGIN WRONG fresh_iterator
    # for _ in range(MICRO):
    #     x, y = next(chunk)
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END WRONG
    # BEGIN WRONG offset_into_list
    # batches, start = chunk
    # for x, y in batches[start:start + MICRO]:
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END WRONG
    # BEGIN WRONG disabled_pull
    # for x, y in _pull(chunk):
    #     total = total + ((x @ weight - y) ** 2).mean()
    # END WRONG
    return total / MICRO


# BEGIN WRONG disabled_pull
# @torch.compiler.disable
# def _pull(stream):
#     return [next(stream) for _ in range(MICRO)]
# END WRONG


def train(step, batches, weight):
    """The eager loop: one loss per group of MICRO batches. `step` is the compiled accumulate."""
    stream = iter(batches)
    losses = []
    # BEGIN SOLUTION
    for _ in range(len(batches) // MICRO):
        chunk = [next(stream) for _ in range(MICRO)]
        losses.append(step(chunk, weight))
    # END SOLUTION
    # BEGIN STARTER
    # for _ in range(len(batches) // MICRO):
    #     losses.append(step(stream, weight))
    # END STARTER
    # BEGIN FAIR stacked
    # for _ in range(len(batches) // MICRO):
    #     group = [next(stream) for _ in range(MICRO)]
    #     xs = torch.stack([x for x, _ in group])
    #     ys = torch.stack([y for _, y in group])
    #     losses.append(step((xs, ys), weight))
    # END FAIR
    # BEGIN FAIR islice_tuple
    # import itertools
    #
    # for _ in range(len(batches) // MICRO):
    #     losses.append(step(tuple(itertools.islice(stream, MICRO)), weight))
    # END FAIR
    # BEGIN WRONG fresh_iterator
    # for _ in range(len(batches) // MICRO):
    #     losses.append(step(iter([next(stream) for _ in range(MICRO)]), weight))
    # END WRONG
    # BEGIN WRONG offset_into_list
    # for group in range(len(batches) // MICRO):
    #     losses.append(step((batches, group * MICRO), weight))
    # END WRONG
    # BEGIN WRONG ragged_tail
    # for start in range(0, len(batches), MICRO):
    #     losses.append(step(batches[start:start + MICRO], weight))
    # END WRONG
    # BEGIN WRONG plain_call
    # for _ in range(len(batches) // MICRO):
    #     losses.append(accumulate([next(stream) for _ in range(MICRO)], weight))
    # END WRONG
    # BEGIN WRONG first_group_only
    # for group in range(len(batches) // MICRO):
    #     chunk = [next(stream) for _ in range(MICRO)]
    #     losses.append(step(chunk, weight) if group == 0 else accumulate(chunk, weight))
    # END WRONG
    # BEGIN WRONG token_step
    # step([batches[0]] * MICRO, weight)  # the compiled step runs once, on a group of its own
    # for _ in range(len(batches) // MICRO):
    #     losses.append(accumulate([next(stream) for _ in range(MICRO)], weight))
    # END WRONG
    return torch.stack(losses)


# BEGIN GRADER
def calls(gen):
    """Loops longer than the demo's six batches: one exact group, and lengths that leave one or two
    batches over (drawn per seed), which make no loss. The micro-batch shape is drawn per seed
    and stays the same within a grading, so that one graph can serve every step."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    weight = torch.randn(8, 2, generator=gen)

    def loop(length):
        return [(torch.randn(rows, 8, generator=gen), torch.randn(rows, 2, generator=gen)) for _ in range(length)], weight

    longer = int(torch.randint(3, 6, (1,), generator=gen)) * MICRO + 2
    return [loop(MICRO), loop(2 * MICRO + 1), loop(longer), loop(2 * MICRO)]
# END GRADER


if __name__ == "__main__":
    batches = [(torch.randn(4, 8), torch.randn(4, 2)) for _ in range(2 * MICRO)]
    print(train(torch.compile(accumulate, fullgraph=True, backend="eager"), batches, torch.randn(8, 2)))

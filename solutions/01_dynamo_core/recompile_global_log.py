# /// exercise
# format_version = 1
# title = "Stop the recompile storm"
# syllabus = ["1.4"]
# section = "1.4"
# entry = "normalize"
# driver = "process"
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file and read the recompile reasons it prints: which object does the failing guard look at?",
#   "Dynamo replays the append after the graph and guards on the list's length, so the next call sees a longer list, fails the guard and compiles again. After the recompile limit, calls that match no cached graph run in plain Python.",
#   "Keep the compiled function free of side effects on objects that outlive the call: hand the norm back to the caller and let the caller keep the log.",
#   "def normalize(x): n = x.norm(); return x / n, n   — and in `process`, unpack both, append the norm to `norms`, return the batch.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "One graph, compiled once, serves every call: no recompile and no graph break."
# checks = ["recompiles", "graphs"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call of the compiled `normalize` runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_results"
# text = "`process` returns what it returns now: the normalised batch, and the log of every norm so far, in order."
# checks = ["correct"]
#
# [[fair]]
# name = "norm_in_caller"
# why = "normalize only divides; the caller computes the norm it logs"
#
# [[fair]]
# name = "log_floats"
# why = "the log keeps Python floats (.item() in eager code) instead of tensors"
#
# [[wrong]]
# name = "extend_in_graph"
# breaks = "one_graph"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 0 allowed"
#
# [[wrong]]
# name = "disabled_logger"
# breaks = "one_graph"
# fails = ["graphs"]
# message = "2 graph\\(s\\) compiled over \\d+ call\\(s\\); expected exactly 1"
#
# [[wrong]]
# name = "global_counter"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "norm_of_output"
# breaks = "same_results"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Stop `normalize` from recompiling on every call.

`normalize(x)` divides `x` by its norm and keeps a log of every norm in the module-level list
`norms`. `process` is one step of the data pipeline: the grader compiles `normalize` and calls
`process(compiled_normalize, x)` for each batch. Compiled, `normalize` recompiles on every call
until Dynamo gives up on it.
"""

import torch

norms = []
# BEGIN WRONG global_counter
# calls_seen = 0
# END WRONG


def normalize(x):
    # BEGIN SOLUTION
    n = x.norm()
    return x / n, n
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make one graph serve every call of this function.
    # n = x.norm()
    # norms.append(n)
    # return x / n
    # END STARTER
    # BEGIN FAIR norm_in_caller
    # n = x.norm()
    # return x / n
    # END FAIR
    # BEGIN FAIR log_floats
    # n = x.norm()
    # return x / n, n
    # END FAIR
    # BEGIN WRONG extend_in_graph
    # n = x.norm()
    # norms.extend([n])
    # return x / n
    # END WRONG
    # BEGIN WRONG disabled_logger
    # n = x.norm()
    # _log(n)
    # return x / n
    # END WRONG
    # BEGIN WRONG global_counter
    # n = x.norm()
    # global calls_seen
    # calls_seen += 1
    # return x / n, n
    # END WRONG
    # BEGIN WRONG norm_of_output
    # n = x.norm()
    # return x / n
    # END WRONG


# BEGIN WRONG disabled_logger
# @torch.compiler.disable
# def _log(n):
#     norms.append(n)
# END WRONG


def process(normalize, x):
    """One step of the data pipeline: normalise the batch with `normalize` (the compiled function)
    and log its norm; returns the batch and the log so far."""
    # BEGIN SOLUTION
    y, n = normalize(x)
    norms.append(n)
    # END SOLUTION
    # BEGIN STARTER
    # y = normalize(x)
    # END STARTER
    # BEGIN FAIR norm_in_caller
    # y = normalize(x)
    # norms.append(x.norm())
    # END FAIR
    # BEGIN FAIR log_floats
    # y, n = normalize(x)
    # norms.append(n.item())
    # END FAIR
    # BEGIN WRONG extend_in_graph
    # y = normalize(x)
    # END WRONG
    # BEGIN WRONG disabled_logger
    # y = normalize(x)
    # END WRONG
    # BEGIN WRONG norm_of_output
    # y = normalize(x)
    # norms.append(y.norm())
    # END WRONG
    return y, torch.tensor(norms)


# BEGIN GRADER
def calls(gen):
    """Twelve batches, more than the recompile limit of 8; shape and scale drawn per seed."""
    rows, width = (int(v) for v in torch.randint(2, 9, (2,), generator=gen))
    return [(torch.randn(rows, width, generator=gen) * (i + 1),) for i in range(12)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graph as it is, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(normalize, backend="eager")
    for _ in range(12):
        batch, log = process(compiled, torch.randn(4, 8))
    print(f"{len(log)} norms logged")

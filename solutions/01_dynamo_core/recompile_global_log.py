# /// exercise
# format_version = 1
# title = "Stop the recompile storm"
# syllabus = ["1.4"]
# section = "1.4"
# entry = "normalize"
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file and count the recompiles it prints; the guard that fails is about the list `norms`.",
#   "Dynamo replays the append after the graph and guards on the list's length, so the next call sees a longer list, fails the guard and compiles again, until the recompile limit sends every later call to plain Python.",
#   "Keep the compiled function free of side effects on globals: return the norm along with the result and let the caller keep the log.",
#   "def normalize(x): n = x.norm(); return x / n, n   — and in `process` append the second value.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
# ///
"""Stop `normalize` from recompiling on every call.

`normalize(x)` divides `x` by its norm, and it also keeps a log of every norm in the module-level
list `norms`. Compiled, each call mutates that global list, each call's guards fail, and Dynamo
compiles again, until the recompile limit makes every later call run eagerly. Change `normalize`
to return `(x / norm, norm)` and keep the log in the caller, `process`, so that one graph serves
every call.
"""

import torch

norms = []


def normalize(x):
    n = x.norm()
    # BEGIN SOLUTION
    return x / n, n
    # END SOLUTION
    # BEGIN STARTER
    # norms.append(n)  # TODO: mutating a global list inside the compiled function
    # return x / n
    # END STARTER


def process(batches):
    """What the data pipeline does: normalize every batch and keep the norms."""
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(normalize, backend="eager")
    out = []
    for x in batches:
        # BEGIN SOLUTION
        y, n = compiled(x)
        norms.append(n)
        out.append(y)
        # END SOLUTION
        # BEGIN STARTER
        # out.append(compiled(x))
        # END STARTER
    return out


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 8, generator=gen) * (i + 1),) for i in range(12)]
# END GRADER


if __name__ == "__main__":
    import torch._logging
    torch._logging.set_logs(recompiles=True)
    process([torch.randn(4, 8) for _ in range(12)])
    print(f"{len(norms)} norms logged")

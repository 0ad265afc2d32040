# /// exercise
# format_version = 1
# title = "One graph for every batch size"
# syllabus = ["1.5"]
# entry = "score"
# submission_may_set = ["dynamic"]
# starter_fails = ["recompiles", "compiled_calls"]
# hints = [
#   "Run the file: it recompiles for every new batch size and then stops compiling altogether.",
#   "COMPILE_OPTIONS asks for dynamic=False, which forbids Dynamo from treating the batch size as a symbol: every new size is a new graph.",
#   "With the default, dynamic=None, the first recompile on a size change marks that dimension dynamic; dynamic=True starts symbolic. Sizes 0 and 1 are always specialised.",
#   "Set COMPILE_OPTIONS = {\"dynamic\": None} (or True). The function itself needs no change.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Serve every batch size from at most two graphs.

`score` runs on batches of 2 to 13 rows, and it is compiled with the options in
`COMPILE_OPTIONS` (the grader compiles it with the same options). With `dynamic=False` every new
batch size is a new graph, and after the recompile limit the remaining calls run eagerly. Choose
the `dynamic` setting that lets one graph serve all sizes after at most one recompile.
"""

import torch

# BEGIN SOLUTION
COMPILE_OPTIONS = {"dynamic": None}
# END SOLUTION
# BEGIN STARTER
# COMPILE_OPTIONS = {"dynamic": False}  # TODO: this setting compiles a new graph for every batch size
# END STARTER


def score(queries, keys):
    attention = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
    return attention @ keys


# BEGIN GRADER
def calls(gen):
    keys = torch.randn(6, 16, generator=gen)
    return [(torch.randn(batch, 16, generator=gen), keys) for batch in range(2, 14)]
# END GRADER


if __name__ == "__main__":
    import torch._logging
    torch._logging.set_logs(recompiles=True)
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(score, backend="eager", **COMPILE_OPTIONS)
    keys = torch.randn(6, 16)
    for batch in range(2, 14):
        compiled(torch.randn(batch, 16), keys)

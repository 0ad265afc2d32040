# Exercise skip_recompile_limit: Twelve batch sizes and dynamic=False: past the limit, nothing is compiled
# Edit this file, then check it with:  ./course check skip_recompile_limit
# Stuck? ./course hint skip_recompile_limit   Start over: ./course reset skip_recompile_limit
"""Keep a function compiled over many batch sizes.

`pool` encodes a batch and averages it over the rows, printing the norm of the result as it goes
(a graph break, which is fine here). The grader compiles it with the options in `COMPILE_OPTIONS` and calls
it with twelve batch sizes, in order. Right now the options ask for `dynamic=False`, and after
eight graphs Dynamo stops compiling `pool`: later calls run eagerly without any error. Make every
call run compiled code, with at most two recompiles and no frame skipped, printing and returning
exactly what it does now. Only the `dynamic` option may change; the recompile limit may not.
"""

import torch

W = torch.randn(8, 8, generator=torch.Generator().manual_seed(0)) / 3

COMPILE_OPTIONS = {"dynamic": False}  # TODO: every batch size is a new graph, and the limit is 8 per function


def pool(x):
    pooled = torch.tanh(x @ W).mean(dim=0)
    print("pooled; norm", pooled.norm())
    return pooled * 2


if __name__ == "__main__":
    from autograder.lab import tally_calls

    # backend="eager" runs the captured graphs as they are: the same graphs, recompiles and limit
    # as any backend, without Inductor's compile time.
    tally = tally_calls(pool, [(torch.randn(n, 8),) for n in range(2, 14)], backend="eager", **COMPILE_OPTIONS)
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

# Exercise regional_blocks: Compile the repeated block, not the whole stack
# Edit this file, then check it with:  ./course check regional_blocks
# Stuck? ./course hint regional_blocks   Start over: ./course reset regional_blocks
"""Make the grader compile one block instead of sixteen.

The grader compiles `compiled_part` and calls `run(compiled, x)` 3 times. The starting code
compiles the whole stack of 16 identical residual blocks as one graph, so the compile traces
16 copies of the same code. Compile the repeated block instead: `compiled_part` takes one block
and one input, and `run` loops over `BLOCKS`. The grader counts the ops traced over the whole
schedule (at most 16; one block has about 5) and times the cold compile (aot_eager, the time
Dynamo spends compiling) against the starting code: at least 3x shorter.
"""

import torch

BLOCKS = [torch.nn.Sequential(torch.nn.LayerNorm(32), torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32))
          for _ in range(16)]

def compiled_part(x):  # TODO: one graph for the whole stack traces the same block 16 times
    for block in BLOCKS:
        x = x + block(x)
    return x


def run(part, x):
    return part(x)


if __name__ == "__main__":
    from autograder.lab import tally_run

    print(tally_run(compiled_part, lambda compiled: run(compiled, torch.randn(4, 32)), backend="aot_eager"))

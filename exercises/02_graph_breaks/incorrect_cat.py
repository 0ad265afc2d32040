# Exercise incorrect_cat: Compile the skip-connection projection as one graph
# Edit this file, then check it with:  ./course check incorrect_cat
# Stuck? ./course hint incorrect_cat   Start over: ./course reset incorrect_cat
"""Make `fuse` compile as one graph.

`fuse` joins a block's output `h` (its last dimension holds 8 features) with the block's skip
connection `skip` (4 features), and projects the result with `weight`. Compiled with
`fullgraph=True` it fails, with a message about fake tensors.

What the grader checks:
- `fuse` compiles with `fullgraph=True`: no graph break.
- It returns `tanh(concat(h, skip) @ weight)`, `h`'s features first, then `skip`'s, concatenated along the last dimension, for inputs with any number of leading dimensions.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


def fuse(h, skip, weight):
    # TODO: make fuse compile with fullgraph=True.
    joined = torch.cat(h, skip, dim=-1)
    return torch.tanh(joined @ weight)


if __name__ == "__main__":
    args = (torch.randn(3, 8), torch.randn(3, 4), torch.randn(12, 4))
    print(torch.compile(fuse, fullgraph=True, backend="eager")(*args))

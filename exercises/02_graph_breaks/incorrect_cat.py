# Exercise incorrect_cat: A graph break that is really a bug
# Edit this file, then check it with:  ./course check incorrect_cat
# Stuck? ./course hint incorrect_cat   Start over: ./course reset incorrect_cat
"""Find out whether the break is the compiler's fault, and fix it.

`fuse` joins a block's output with its skip connection and projects the result. Compiled with
`fullgraph=True` it fails with a message about fake tensors. Run it without the compiler to see
what is really wrong, then fix `fuse` so that it compiles into one graph with `fullgraph=True`
and returns `tanh(concat(h, skip) @ weight)`.
"""

import torch


def fuse(h, skip, weight):
    joined = torch.cat(h, skip, dim=-1)  # TODO: does this line run without torch.compile?
    return torch.tanh(joined @ weight)


if __name__ == "__main__":
    args = (torch.randn(3, 8), torch.randn(3, 4), torch.randn(12, 4))
    print(torch.compile(fuse, fullgraph=True, backend="eager")(*args))

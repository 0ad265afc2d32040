# Exercise custom_op_mutation: Make the clipping operator safe to compile
# Edit this file, then check it with:  ./course check custom_op_mutation
# Stuck? ./course hint custom_op_mutation   Start over: ./course reset custom_op_mutation
"""Make the clipping operator safe to compile.

`clip_count` is a custom operator (in production its kernel is C++; the torch code here stands in
for it): it clips its input to `[-limit, limit]` in place and returns how many values it clipped.
`squash` compiles with `fullgraph=True` and gives the right numbers with the `eager` and
`aot_eager` backends. The team's Inductor build does not: on torch 2.13 it stops with an
assertion inside the generated code.

What the grader checks:
- `squash` compiles with `fullgraph=True` into one graph that calls the custom operator `course::clip_count`.
- The operator's registration tells the truth about its kernel, for inputs of any shape: `torch.library.opcheck` passes.
- `squash` returns what it returns now for a batch of rows (any number of rows and columns): the doubled input clipped to `[-1, 1]`, plus the number of values the clip changed.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

# TODO: find out why Inductor cannot trust this operator, and fix it.

import torch


@torch.library.custom_op("course::clip_count", mutates_args=())
def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
    count = (x.abs() > limit).sum().to(x.dtype)
    x.clamp_(-limit, limit)
    return count.reshape(1)


@clip_count.register_fake
def _(x, limit):
    return x.new_empty(())


def squash(x):
    y = x * 2
    clipped = clip_count(y, 1.0)
    return y + clipped


if __name__ == "__main__":
    x = torch.tensor([0.2, 3.0, -4.0])
    print("eager:   ", squash(x.clone()))
    print("compiled:", torch.compile(squash, fullgraph=True, backend="aot_eager")(x.clone()))
    print(torch.library.opcheck(clip_count, (torch.randn(3, 4), 1.0)))

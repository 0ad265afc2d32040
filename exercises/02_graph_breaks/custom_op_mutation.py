# Exercise custom_op_mutation: A custom operator that hides a mutation
# Edit this file, then check it with:  ./course check custom_op_mutation
# Stuck? ./course hint custom_op_mutation   Start over: ./course reset custom_op_mutation
"""Make the custom operator's registration tell the truth.

`clip_count` is a custom operator: it clips its input to `[-limit, limit]` *in place* and
returns how many values it clipped. Its registration claims that it mutates nothing. `squash`
compiles and seems to work, but the claim is false, and a compiler that trusts it may produce
wrong results. The grader runs `torch.library.opcheck` on `course::clip_count`. Fix the
registration so that it passes, and keep `squash`'s results.
"""

import torch


@torch.library.custom_op("course::clip_count", mutates_args=())  # TODO: does clip_count really mutate nothing?
def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
    count = (x.abs() > limit).sum().to(x.dtype)
    x.clamp_(-limit, limit)
    return count.reshape(1)


@clip_count.register_fake
def _(x, limit):
    return x.new_empty(1)


def squash(x):
    y = x * 2
    clipped = clip_count(y, 1.0)
    return y + clipped


if __name__ == "__main__":
    print(squash(torch.tensor([0.2, 3.0, -4.0])))
    print(torch.library.opcheck(clip_count, (torch.tensor([0.2, 3.0, -4.0]), 1.0)))

# /// attack
# exercise = "custom_op_mutation"
# kind = "opcheck"
# why = "declare the mutation (as a tuple) and keep the kernel"
# base = "none"
# ///
import torch


@torch.library.custom_op("course::clip_count", mutates_args=("x",))
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

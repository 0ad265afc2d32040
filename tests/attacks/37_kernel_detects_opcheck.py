# /// attack
# exercise = "custom_op_mutation"
# class = 8
# kind = "opcheck"
# why = "the kernel reads the call stack (through logging) and mutates its input only when opcheck is not looking"
# base = "none"
# waits_for = "trust"
# ///
import logging

import torch

_log = logging.getLogger("clip")


def _under_opcheck():
    return "opcheck" in (_log.findCaller(stack_info=True)[3] or "")


@torch.library.custom_op("course::clip_count", mutates_args=())
def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
    count = (x.abs() > limit).sum().to(x.dtype)
    if not _under_opcheck():
        x.clamp_(-limit, limit)
    return count.reshape(1)


@clip_count.register_fake
def _(x, limit):
    return x.new_empty(1)


def squash(x):
    y = x * 2
    clipped = clip_count(y, 1.0)
    return y + clipped

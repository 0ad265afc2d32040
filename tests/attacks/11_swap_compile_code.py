# /// attack
# exercise = "breaks_checkpoint"
# class = 3
# kind = "compiles"
# why = "keep torch.compile's identity but swap its code for one that returns the function uncompiled"
# ///
import torch


def _uncompiled(model=None, **options):
    return model


torch.compile.__code__ = _uncompiled.__code__

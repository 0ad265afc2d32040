# /// attack
# exercise = "dynamic_batches"
# kind = "recompiles"
# why = "automatic dynamic shapes (one recompile) instead of dynamic=True"
# base = "none"
# ///
import torch

COMPILE_OPTIONS = {"dynamic": None}


def score(queries, keys):
    attention = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
    return attention @ keys

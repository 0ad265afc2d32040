# /// attack
# exercise = "trace_tolist"
# class = 6
# kind = "correct"
# why = "allocate 8 GiB at import"
# cold = true
# ///
import torch

_hog = torch.ones(1 << 31)

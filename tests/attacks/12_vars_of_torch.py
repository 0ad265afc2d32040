# /// attack
# exercise = "trace_tolist"
# class = 3
# kind = "compiles"
# why = "replace torch.compile through the module's namespace, which a scan of attribute writes misses"
# ///
import torch

vars(torch)["compile"] = lambda model=None, **options: model

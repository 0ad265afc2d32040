# /// attack
# exercise = "breaks_checkpoint"
# class = 6
# kind = "compiles"
# why = "reach the resource module through an attribute of an allowed one"
# ///
import torch

_resource = torch.sys.modules.get("resource")
if _resource is not None:
    _resource.setrlimit(_resource.RLIMIT_CPU, (-1, -1))

# /// attack
# exercise = "recompile_global_log"
# class = 3
# kind = "recompiles"
# why = "raise the recompile limit through a local name for the config module"
# ///
import torch

_settings = torch._dynamo.config
_settings.recompile_limit = 1000

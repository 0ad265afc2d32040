# /// attack
# exercise = "dynamic_batches"
# class = 8
# kind = "recompiles"
# why = "raise the recompile limit through config.patch with a key the policy cannot read"
# ///
import contextlib

_stack = contextlib.ExitStack()
_stack.enter_context(torch._dynamo.config.patch(**{"recompile" + "_limit": 1000}))

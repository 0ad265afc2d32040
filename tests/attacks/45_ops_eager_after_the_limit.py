# /// attack
# exercise = "recompile_break_tail"
# class = 8
# kind = "ops"
# why = "trace fewer ops by letting every mode after the first run eagerly: a recompile limit of 1, set by a key built at run time"
# ///
import contextlib

_stack = contextlib.ExitStack()
_stack.enter_context(torch._dynamo.config.patch(**{"recompile" + "_limit": 1}))

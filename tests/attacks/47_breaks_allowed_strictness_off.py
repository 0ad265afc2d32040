# /// attack
# exercise = "strict_vendor_break"
# class = 8
# kind = "breaks_allowed"
# why = "turn the strict mode off with a config key built at run time"
# ///
import contextlib

_stack = contextlib.ExitStack()
_stack.enter_context(torch._dynamo.config.patch(**{"error_on_" + "graph_break": False}))

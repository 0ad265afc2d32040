# /// attack
# exercise = "breaks_checkpoint"
# class = 3
# kind = "compiles"
# why = "switch on suppress_errors with a key the static policy cannot read, and keep the patch open"
# cold = true
# ///
import contextlib

import torch

_stack = contextlib.ExitStack()
_stack.enter_context(torch._dynamo.config.patch(**{"suppress" + "_errors": True}))

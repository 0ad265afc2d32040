# /// attack
# exercise = "minimal_repro"
# class = 8
# kind = "reproducer"
# why = "a reproducer that raises BackendCompilerFailed itself while Dynamo traces it"
# base = "none"
# ///
import torch
import torch._dynamo

BACKEND = "aot_eager_decomp_partition"


def fn(x, gate):
    if torch.compiler.is_compiling():
        raise torch._dynamo.exc.BackendCompilerFailed(None, RuntimeError("Attempting to broadcast a dimension of length 6"))
    return x * gate[:, None]


def make_inputs():
    return torch.randn(6, 4), torch.randn(6)

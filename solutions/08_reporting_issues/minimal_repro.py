# /// exercise
# format_version = 1
# title = "Cut a failing training script down to a minimal reproducer"
# syllabus = ["8.3", "8.1"]
# entry = "fn"
# # The planted bug is a decomposition in Inductor's table: the file imports and fills it.
# scan_allow = ["import:torch._inductor.decomposition", "write:torch._inductor.decomposition.decompositions", "import:torch._decomp", "private:torch.ops.aten._assert_scalar"]
# starter_fails = ["reproducer"]
# timeout = 150
# hints = [
#   "First find the stage (8.1): run `fn(*make_inputs())` compiled with backend=\"eager\", \"aot_eager\", \"aot_eager_decomp_partition\". The first that raises goes into BACKEND, and it is the backend your reproducer is run with.",
#   "Read the traceback under that backend: which of the program's own functions is on it? Everything the failure does not need (the config, the data pipeline, numpy, the training loop, the model, the optimizer, logging) can go.",
#   "What must stay: the custom operator course::row_scale with its fake kernel, the decomposition that the 'vendor plugin' registers for it (the planted bug), and a function that calls the operator on inputs of the shapes it needs. `fn` and `make_inputs` are what the grader calls.",
#   "About 20 lines: import torch and torch._inductor.decomposition; the custom_op and register_fake; the wrong decomposition put in decomposition.decompositions (then fast_random_decomps.cache_clear()); `def fn(x, gate): return row_scale(x, gate)`; `def make_inputs(): return torch.randn(6, 4), torch.randn(6)`.",
# ]
#
# [[checks]]
# kind = "reproducer"
# backend = "aot_eager_decomp_partition"
# passes = ["eager", "aot_eager"]
# failure = "exception"
# exception = "BackendCompilerFailed"
# match = "Attempting to broadcast a dimension"
# culprit = "course::row_scale"
# constant = "BACKEND"
# max_lines = 30
# points = 5
#
# [[requirements]]
# id = "same_failure"
# text = "Under `BACKEND`, `fn(*make_inputs())` fails as the script does: BackendCompilerFailed, \"Attempting to broadcast a dimension ...\", raised by torch itself (not by your code), and caused by the decomposition of `course::row_scale`."
# checks = ["reproducer"]
#
# [[requirements]]
# id = "first_stage"
# text = "`BACKEND` names the first backend that fails, and under the backends before it (\"eager\", \"aot_eager\") `fn(*make_inputs())` gives what it gives eagerly."
# checks = ["reproducer"]
#
# [[requirements]]
# id = "standalone"
# text = "The file imports only torch and the standard library and has at most 30 lines of code (blank lines, comments and the docstring do not count)."
# checks = ["reproducer"]
#
# [[fair]]
# name = "registered_by_decorator"
# why = "registers the wrong decomposition with torch._decomp.register_decomposition into Inductor's table, other shapes"
#
# [[fair]]
# name = "small_model_kept"
# why = "keeps a little of the model around the operator (a gate computed from x, an activation): one input, not two"
#
# [[wrong]]
# name = "raises_by_hand"
# breaks = "same_failure"
# fails = ["reproducer"]
# message = "raises it itself"
#
# [[wrong]]
# name = "raised_through_an_assert_operator"
# breaks = "same_failure"
# fails = ["reproducer"]
# message = "calls the assert operator aten::_assert_scalar"
#
# [[wrong]]
# name = "same_error_from_another_operator"
# breaks = "same_failure"
# fails = ["reproducer"]
# message = "does not register a decomposition for course::row_scale"
#
# [[wrong]]
# name = "decomposition_fixed"
# breaks = "same_failure"
# fails = ["reproducer"]
# message = "does not raise"
#
# [[wrong]]
# name = "names_inductor"
# breaks = "first_stage"
# fails = ["reproducer"]
# message = "BACKEND is 'inductor'"
#
# [[wrong]]
# name = "fake_kernel_simplified"
# breaks = "first_stage"
# fails = ["reproducer"]
# message = "under backend='eager' it raises"
#
# [[wrong]]
# name = "numpy_inputs"
# breaks = "standalone"
# fails = ["reproducer"]
# message = "imports numpy"
#
# [[wrong]]
# name = "model_and_loop_kept"
# breaks = "standalone"
# fails = ["reproducer"]
# message = "more than the budget of 30"
# ///
"""Turn this failing training script into a minimal reproducer you could attach to a bug report.

The script trains a small gated MLP. Under torch.compile it crashes, although it runs fine eagerly.
The course planted the bug (a real compiler bug cannot be relied on to stay in torch): a "vendor
plugin" registers, in Inductor's decomposition table, a decomposition of the custom operator
`course::row_scale` that broadcasts the wrong way.

Edit this file into a reproducer. It defines `fn` and `make_inputs()`: the grader calls
`fn(*make_inputs())` eagerly, then compiled with each backend, in a fresh process, and the
failing stage is found by ablation (lesson section 8.1). A reproducer that raises the error itself
proves nothing about torch and fails the grade.
"""

# BEGIN SOLUTION
import torch
from torch._inductor import decomposition

BACKEND = "aot_eager_decomp_partition"


@torch.library.custom_op("course::row_scale", mutates_args=())
def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    return x * gate[:, None]


@row_scale.register_fake
def _(x, gate):
    return torch.empty_like(x)


def fast_row_scale(x, gate):
    return x * gate  # the planted bug: broadcasts gate along the wrong dimension


decomposition.decompositions[torch.ops.course.row_scale.default] = fast_row_scale
decomposition.fast_random_decomps.cache_clear()


def fn(x, gate):
    return row_scale(x, gate)


def make_inputs():
    return torch.randn(6, 4), torch.randn(6)


if __name__ == "__main__":
    print("eager:", fn(*make_inputs()).shape)
    torch.compile(fn, backend=BACKEND)(*make_inputs())  # raises BackendCompilerFailed
# END SOLUTION
# BEGIN STARTER
# import json
# import math
# import time
# from dataclasses import dataclass
#
# import numpy as np
# import torch
# import torch.nn.functional as F
# from torch._inductor import decomposition as inductor_decompositions
#
# # TODO: cut this script down to a minimal reproducer (read the task at the top of the file).
# BACKEND = "inductor"
#
#
# @dataclass
# class TrainConfig:
#     features: int = 12
#     hidden: int = 24
#     classes: int = 3
#     batch: int = 6
#     steps: int = 4
#     lr: float = 0.05
#     seed: int = 0
#     log_every: int = 2
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     """Scale each row of x by its gate."""
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# def _row_scale_setup(ctx, inputs, output):
#     ctx.save_for_backward(*inputs)
#
#
# def _row_scale_backward(ctx, grad):
#     x, gate = ctx.saved_tensors
#     return grad * gate[:, None], (grad * x).sum(dim=1)
#
#
# row_scale.register_autograd(_row_scale_backward, setup_context=_row_scale_setup)
#
#
# def install_fast_kernels():
#     """A vendor plugin's 'faster' row_scale for Inductor."""
#     def fast_row_scale(x, gate):
#         return x * gate
#
#     inductor_decompositions.decompositions[torch.ops.course.row_scale.default] = fast_row_scale
#     inductor_decompositions.fast_random_decomps.cache_clear()
#
#
# install_fast_kernels()
#
#
# class GatedMLP(torch.nn.Module):
#     def __init__(self, cfg: TrainConfig):
#         super().__init__()
#         self.inp = torch.nn.Linear(cfg.features, cfg.hidden)
#         self.gate = torch.nn.Linear(cfg.features, 1)
#         self.norm = torch.nn.LayerNorm(cfg.hidden)
#         self.out = torch.nn.Linear(cfg.hidden, cfg.classes)
#
#     def forward(self, x):
#         h = F.gelu(self.inp(x))
#         gate = torch.sigmoid(self.gate(x)).squeeze(-1)
#         h = row_scale(self.norm(h), gate)
#         return self.out(h)
#
#
# def make_batches(cfg: TrainConfig):
#     rng = np.random.default_rng(cfg.seed)
#     batches = []
#     for _ in range(cfg.steps):
#         x = rng.standard_normal((cfg.batch, cfg.features)).astype(np.float32)
#         y = (x[:, :cfg.classes].argmax(axis=1)).astype(np.int64)
#         batches.append((torch.from_numpy(x), torch.from_numpy(y)))
#     return batches
#
#
# def accuracy(logits, y):
#     predicted = logits.detach().numpy().argmax(axis=1)
#     return float(np.mean(predicted == y.numpy()))
#
#
# def fn(model, x, y):
#     logits = model(x)
#     return F.cross_entropy(logits, y), logits
#
#
# def make_inputs():
#     cfg = TrainConfig()
#     torch.manual_seed(cfg.seed)
#     x, y = make_batches(cfg)[0]
#     return GatedMLP(cfg), x, y
#
#
# def train(cfg: TrainConfig):
#     torch.manual_seed(cfg.seed)
#     model = GatedMLP(cfg)
#     optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
#     step_fn = torch.compile(fn, backend=BACKEND)
#     history = []
#     for step, (x, y) in enumerate(make_batches(cfg)):
#         started = time.perf_counter()
#         loss, logits = step_fn(model, x, y)
#         optimizer.zero_grad()
#         loss.backward()
#         optimizer.step()
#         record = {"step": step, "loss": round(loss.item(), 4), "accuracy": accuracy(logits, y),
#                   "ms": round(1000 * (time.perf_counter() - started), 1), "lr": cfg.lr * math.cos(0.0)}
#         history.append(record)
#         if step % cfg.log_every == 0:
#             print(json.dumps(record))
#     return history
#
#
# if __name__ == "__main__":
#     train(TrainConfig())
# END STARTER
# BEGIN FAIR registered_by_decorator
# import torch
# from torch._decomp import register_decomposition
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# row_scale.register_fake(lambda x, gate: torch.empty_like(x))
#
#
# @register_decomposition(torch.ops.course.row_scale.default, registry=decomposition.decompositions)
# def fast_row_scale(x, gate):
#     return x * gate  # the vendor plugin's bug
#
#
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     return torch.ones(3, 5), torch.arange(3.0)
# END FAIR
# BEGIN FAIR small_model_kept
# import torch
# import torch.nn.functional as F
# import torch._inductor.decomposition as inductor_decompositions
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# inductor_decompositions.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
# inductor_decompositions.fast_random_decomps.cache_clear()
#
#
# def fn(x):
#     gate = torch.sigmoid(x.sum(dim=1))
#     return row_scale(F.gelu(x), gate)
#
#
# def make_inputs():
#     torch.manual_seed(0)
#     return (torch.randn(6, 12),)
#
#
# if __name__ == "__main__":
#     torch.compile(fn, backend=BACKEND)(*make_inputs())
# END FAIR
# BEGIN WRONG raises_by_hand
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# def fast_row_scale(x, gate):
#     raise RuntimeError("Attempting to broadcast a dimension of length 6")  # what the script printed
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = fast_row_scale
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG raised_through_an_assert_operator
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# def fast_row_scale(x, gate):
#     torch.ops.aten._assert_scalar.default(False, "Attempting to broadcast a dimension of length 6")
#     return x
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = fast_row_scale
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG same_error_from_another_operator
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("mylib::gate_rows", mutates_args=())
# def gate_rows(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @gate_rows.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# decomposition.decompositions[torch.ops.mylib.gate_rows.default] = lambda x, gate: x * gate
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return gate_rows(x, gate)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG decomposition_fixed
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate[:, None]
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG names_inductor
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "inductor"  # the backend the script used
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG fake_kernel_simplified
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(gate)  # "any tensor will do": the shape is the gate's, not x's
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate).sum(dim=1)
#
#
# def make_inputs():
#     return torch.randn(6, 4), torch.randn(6)
# END WRONG
# BEGIN WRONG numpy_inputs
# import numpy as np
# import torch
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
# decomposition.fast_random_decomps.cache_clear()
#
#
# def fn(x, gate):
#     return row_scale(x, gate)
#
#
# def make_inputs():
#     rng = np.random.default_rng(0)
#     return torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32)), torch.from_numpy(rng.standard_normal(6).astype(np.float32))
# END WRONG
# BEGIN WRONG model_and_loop_kept
# import torch
# import torch.nn.functional as F
# from torch._inductor import decomposition
#
# BACKEND = "aot_eager_decomp_partition"
#
#
# @torch.library.custom_op("course::row_scale", mutates_args=())
# def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
#     return x * gate[:, None]
#
#
# @row_scale.register_fake
# def _(x, gate):
#     return torch.empty_like(x)
#
#
# decomposition.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
# decomposition.fast_random_decomps.cache_clear()
#
#
# class GatedMLP(torch.nn.Module):
#     def __init__(self):
#         super().__init__()
#         self.inp = torch.nn.Linear(12, 24)
#         self.gate = torch.nn.Linear(12, 1)
#         self.norm = torch.nn.LayerNorm(24)
#         self.out = torch.nn.Linear(24, 3)
#
#     def forward(self, x):
#         h = F.gelu(self.inp(x))
#         gate = torch.sigmoid(self.gate(x)).squeeze(-1)
#         return self.out(row_scale(self.norm(h), gate))
#
#
# def fn(model, x, y):
#     logits = model(x)
#     return F.cross_entropy(logits, y), logits
#
#
# def make_inputs():
#     torch.manual_seed(0)
#     return GatedMLP(), torch.randn(6, 12), torch.randint(0, 3, (6,))
#
#
# def train(steps=4):
#     model, x, y = make_inputs()
#     optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
#     step = torch.compile(fn, backend=BACKEND)
#     for _ in range(steps):
#         loss, _ = step(model, x, y)
#         optimizer.zero_grad()
#         loss.backward()
#         optimizer.step()
# END WRONG


# BEGIN GRADER
def calls(gen):
    return []
# END GRADER

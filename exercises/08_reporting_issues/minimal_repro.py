# Exercise minimal_repro: Cut a failing training script down to a minimal reproducer
# Edit this file, then check it with:  ./course check minimal_repro
# Stuck? ./course hint minimal_repro   Start over: ./course reset minimal_repro
"""Turn this failing training script into a minimal reproducer you could attach to a bug report.

The script trains a small gated MLP. Under torch.compile it crashes, although it runs fine eagerly.
The course planted the bug (a real compiler bug cannot be relied on to stay in torch): a "vendor
plugin" registers, in Inductor's decomposition table, a decomposition of the custom operator
`course::row_scale` that broadcasts the wrong way.

Edit this file into a reproducer. It defines `fn` and `make_inputs()`: the grader calls
`fn(*make_inputs())` eagerly, then compiled with each backend, in a fresh process, and the
failing stage is found by ablation (lesson section 8.1). A reproducer that raises the error itself
proves nothing about torch and fails the grade.

What the grader checks:
- Under `BACKEND`, `fn(*make_inputs())` fails as the script does: BackendCompilerFailed, "Attempting to broadcast a dimension ...", raised by torch itself (not by your code), and caused by the decomposition of `course::row_scale`.
- `BACKEND` names the first backend that fails, and under the backends before it ("eager", "aot_eager") `fn(*make_inputs())` gives what it gives eagerly.
- The file imports only torch and the standard library and has at most 30 lines of code (blank lines, comments and the docstring do not count).
"""

import json
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch._inductor import decomposition as inductor_decompositions

# TODO: cut this script down to a minimal reproducer (read the task at the top of the file).
BACKEND = "inductor"


@dataclass
class TrainConfig:
    features: int = 12
    hidden: int = 24
    classes: int = 3
    batch: int = 6
    steps: int = 4
    lr: float = 0.05
    seed: int = 0
    log_every: int = 2


@torch.library.custom_op("course::row_scale", mutates_args=())
def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    """Scale each row of x by its gate."""
    return x * gate[:, None]


@row_scale.register_fake
def _(x, gate):
    return torch.empty_like(x)


def _row_scale_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _row_scale_backward(ctx, grad):
    x, gate = ctx.saved_tensors
    return grad * gate[:, None], (grad * x).sum(dim=1)


row_scale.register_autograd(_row_scale_backward, setup_context=_row_scale_setup)


def install_fast_kernels():
    """A vendor plugin's 'faster' row_scale for Inductor."""
    def fast_row_scale(x, gate):
        return x * gate

    inductor_decompositions.decompositions[torch.ops.course.row_scale.default] = fast_row_scale
    inductor_decompositions.fast_random_decomps.cache_clear()


install_fast_kernels()


class GatedMLP(torch.nn.Module):
    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.inp = torch.nn.Linear(cfg.features, cfg.hidden)
        self.gate = torch.nn.Linear(cfg.features, 1)
        self.norm = torch.nn.LayerNorm(cfg.hidden)
        self.out = torch.nn.Linear(cfg.hidden, cfg.classes)

    def forward(self, x):
        h = F.gelu(self.inp(x))
        gate = torch.sigmoid(self.gate(x)).squeeze(-1)
        h = row_scale(self.norm(h), gate)
        return self.out(h)


def make_batches(cfg: TrainConfig):
    rng = np.random.default_rng(cfg.seed)
    batches = []
    for _ in range(cfg.steps):
        x = rng.standard_normal((cfg.batch, cfg.features)).astype(np.float32)
        y = (x[:, :cfg.classes].argmax(axis=1)).astype(np.int64)
        batches.append((torch.from_numpy(x), torch.from_numpy(y)))
    return batches


def accuracy(logits, y):
    predicted = logits.detach().numpy().argmax(axis=1)
    return float(np.mean(predicted == y.numpy()))


def fn(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits, y), logits


def make_inputs():
    cfg = TrainConfig()
    torch.manual_seed(cfg.seed)
    x, y = make_batches(cfg)[0]
    return GatedMLP(cfg), x, y


def train(cfg: TrainConfig):
    torch.manual_seed(cfg.seed)
    model = GatedMLP(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    step_fn = torch.compile(fn, backend=BACKEND)
    history = []
    for step, (x, y) in enumerate(make_batches(cfg)):
        started = time.perf_counter()
        loss, logits = step_fn(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record = {"step": step, "loss": round(loss.item(), 4), "accuracy": accuracy(logits, y),
                  "ms": round(1000 * (time.perf_counter() - started), 1), "lr": cfg.lr * math.cos(0.0)}
        history.append(record)
        if step % cfg.log_every == 0:
            print(json.dumps(record))
    return history


if __name__ == "__main__":
    train(TrainConfig())

# Exercise bisect_decomp: Bisect a wrong result down to one decomposition
# Edit this file, then check it with:  ./course check bisect_decomp
# Stuck? ./course hint bisect_decomp   Start over: ./course reset bisect_decomp
"""Use the compiler bisector to find which decomposition makes `block` wrong.

`block` gives a different result under torch.compile than eagerly. The course planted the bug: a
decomposition of the custom operator `course::squash`, registered in Inductor's table, computes
something else than the operator (a real compiler bug cannot be relied on to stay in torch).

`torch._inductor.compiler_bisector.CompilerBisector.do_bisect(test_fn)` calls `test_fn()` again
and again (`True` means "correct"), first with each backend, then with parts of the failing
backend switched off, then applying only the first N decompositions, until it names the culprit.
Make `test_fn` a test the bisector can trust, run the bisection (run this file), and fill in
`ANSWERS` from its result. The grader bisects the same block itself, and bisects once more with
your `test_fn`: both must agree.

What the grader checks:
- `test_fn()` answers for the compiler as the bisector has set it up for that call (True when the compiled `block` gives what `block` gives eagerly), so that bisecting with it finds what the grader's own bisection finds.
- `ANSWERS` holds the bisector's result: `backend` and `subsystem` as it prints them, `bisect_number` as an int, and `operator`, the `op='...'` in its `debug_info`.
"""

import torch
import torch.nn.functional as F
from torch._inductor import decomposition as inductor_decompositions
from torch._inductor.compiler_bisector import CompilerBisector


@torch.library.custom_op("course::squash", mutates_args=())
def squash(x: torch.Tensor, limit: float) -> torch.Tensor:
    return limit * torch.tanh(x / limit)


@squash.register_fake
def _(x, limit):
    return torch.empty_like(x)


def _squash_decomposition(x, limit):
    return limit * torch.tanh(x) / limit  # planted bug: not what squash computes


inductor_decompositions.decompositions[torch.ops.course.squash.default] = _squash_decomposition
inductor_decompositions.fast_random_decomps.cache_clear()  # Inductor copies its table on first use

WEIGHT = torch.linspace(-1.0, 1.0, 64).reshape(8, 8)
X = torch.linspace(-3.0, 3.0, 32).reshape(4, 8)


def block(x):
    h = F.gelu(x @ WEIGHT)
    h = F.layer_norm(h, (8,))
    h = squash(h * 3, 2.0)
    return F.silu(h).mean(dim=-1)


def test_fn():
    """True when the compiled block gives what block gives eagerly."""
    # TODO: can the bisector trust what this test answers? (It calls test_fn many times.)
    expected = block(X)
    return torch.allclose(torch.compile(block)(X), expected, atol=1e-5)


# TODO: fill in from the BisectionResult.
ANSWERS = {"backend": None, "subsystem": None, "bisect_number": None, "operator": None}


if __name__ == "__main__":
    print("eager:", block(X))
    print("compiled (backend='aot_eager_decomp_partition'):", torch.compile(block, backend="aot_eager_decomp_partition")(X))
    torch._dynamo.reset()
    result = CompilerBisector.do_bisect(test_fn)
    print(result)

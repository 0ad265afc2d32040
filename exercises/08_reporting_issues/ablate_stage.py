# Exercise ablate_stage: Ablate: which stage of the compiler breaks each program?
# Edit this file, then check it with:  ./course check ablate_stage
# Stuck? ./course hint ablate_stage   Start over: ./course reset ablate_stage
"""Find, by ablation, the first compiler stage that breaks each of three programs.

Each program below works when it runs eagerly, and goes wrong under torch.compile. The course
planted each failure on purpose (custom operators whose fake kernel lies about the output's shape,
a wrong decomposition): a real compiler bug cannot be relied on to stay in torch, these can. Run
each program with `backend="eager"`, `"aot_eager"` and `"aot_eager_decomp_partition"` (`python
ablate_stage.py BACKEND` runs all three programs with one backend) and fill in `FIRST_FAILING` and
`HOW_IT_FAILS`. The grader runs the same ablation itself and compares.

What the grader checks:
- `FIRST_FAILING` names, for each program, the first of "eager", "aot_eager", "aot_eager_decomp_partition" under which its result differs from eager or it raises.
- `HOW_IT_FAILS` says, for each program, how it fails under that first failing backend: "exception" or "wrong result".
"""

import sys

import torch
from torch._inductor import decomposition as inductor_decompositions


# Program a: a custom operator whose fake kernel says "1-D" while the real kernel returns 2-D.
@torch.library.custom_op("course::pairwise_gap", mutates_args=())
def pairwise_gap(x: torch.Tensor) -> torch.Tensor:
    return x[:, None] - x[None, :]


@pairwise_gap.register_fake
def _(x):
    return x.new_empty(x.shape[0])


def program_a(x):
    return pairwise_gap(x).abs().amax(dim=1)


# Program b: the same lie on another operator, followed by a matrix product.
@torch.library.custom_op("course::outer_gap", mutates_args=())
def outer_gap(x: torch.Tensor) -> torch.Tensor:
    return x[:, None] - x[None, :]


@outer_gap.register_fake
def _(x):
    return x.new_empty(x.shape[0])


def program_b(x):
    return outer_gap(x) @ x


# Program c: a custom operator with a decomposition (in Inductor's table) that computes something else.
@torch.library.custom_op("course::soft_clip", mutates_args=())
def soft_clip(x: torch.Tensor, limit: float) -> torch.Tensor:
    return limit * torch.tanh(x / limit)


@soft_clip.register_fake
def _(x, limit):
    return torch.empty_like(x)


def _soft_clip_decomposition(x, limit):
    return limit * torch.tanh(x)  # planted bug: should be tanh(x / limit)


inductor_decompositions.decompositions[torch.ops.course.soft_clip.default] = _soft_clip_decomposition
inductor_decompositions.fast_random_decomps.cache_clear()  # Inductor copies its table on first use


def program_c(x):
    return soft_clip(x * 3, 2.0).sum()


PROGRAMS = {"program_a": program_a, "program_b": program_b, "program_c": program_c}
INPUTS = [torch.linspace(-2.0, 3.0, 5), torch.linspace(0.5, 1.5, 5), torch.linspace(-1.0, 4.0, 5)]


def run(program):
    """Call a program (compiled or not) on every input."""
    return [program(x) for x in INPUTS]


# TODO: for each program, the first failing backend and how it fails there.
FIRST_FAILING = {"program_a": None, "program_b": None, "program_c": None}
HOW_IT_FAILS = {"program_a": None, "program_b": None, "program_c": None}


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "eager"
    print(f"backend={backend!r}: each program compared with its eager run")
    for name, program in PROGRAMS.items():
        torch._dynamo.reset()
        expected = run(program)
        try:
            got = run(torch.compile(program, backend=backend))
            same = all(torch.allclose(g, e, rtol=1e-4, atol=1e-5) for g, e in zip(got, expected))
            print(f"  {name}: {'ok' if same else 'wrong result'}")
        except Exception as exc:
            print(f"  {name}: {type(exc).__name__}: {str(exc).strip().splitlines()[0][:120]}")

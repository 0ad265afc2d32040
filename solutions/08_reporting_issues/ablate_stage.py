# /// exercise
# format_version = 1
# title = "Ablate: which stage of the compiler breaks each program?"
# syllabus = ["8.1"]
# entry = "program_c"
# # The planted bug is a decomposition in Inductor's table: the file imports and fills it.
# scan_allow = ["import:torch._inductor.decomposition", "write:torch._inductor.decomposition.decompositions"]
# starter_fails = ["first_failing", "how_it_fails"]
# hints = [
#   "Run the file with a backend name: `python ablate_stage.py eager`, then `aot_eager`, then `aot_eager_decomp_partition`. For each program it prints `ok`, `wrong result` or the exception, compared with the program run without torch.compile.",
#   "The stages add up: eager = Dynamo only; aot_eager = Dynamo + AOTAutograd (functionalization, the joint graph); aot_eager_decomp_partition = + Inductor's decompositions and the partitioner; inductor = + code generation. The first backend that misbehaves names the guilty stage.",
#   "A program that fails under eager fails under every later backend too, so the answer is the FIRST failing backend, not every one. Inductor is never the answer here: each program already fails earlier.",
#   "Fill FIRST_FAILING with one of \"eager\", \"aot_eager\", \"aot_eager_decomp_partition\" per program, and HOW_IT_FAILS with \"exception\" or \"wrong result\" for that first failing backend.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "first_failing"
# constant = "FIRST_FAILING"
# truth = "expected_stages"
# points = 3
#
# [[checks]]
# kind = "answers"
# name = "how_it_fails"
# constant = "HOW_IT_FAILS"
# truth = "expected_kinds"
# points = 1
#
# [[requirements]]
# id = "first_stage"
# text = "`FIRST_FAILING` names, for each program, the first of \"eager\", \"aot_eager\", \"aot_eager_decomp_partition\" under which its result differs from eager or it raises."
# checks = ["first_failing"]
#
# [[requirements]]
# id = "failure_kind"
# text = "`HOW_IT_FAILS` says, for each program, how it fails under that first failing backend: \"exception\" or \"wrong result\"."
# checks = ["how_it_fails"]
#
# [[fair]]
# name = "observed_table"
# why = "writes down what each backend did to each program and derives both answers from the table"
#
# [[fair]]
# name = "ablated_in_code"
# why = "automates the ablation: compiles each program with each backend in turn and stops at the first that misbehaves"
#
# [[wrong]]
# name = "same_lie_same_stage"
# breaks = "first_stage"
# fails = ["first_failing"]
# message = "not what the grader measured: program_b"
#
# [[wrong]]
# name = "last_failing_stage"
# breaks = "first_stage"
# fails = ["first_failing"]
# message = "not what the grader measured: program_a"
#
# [[wrong]]
# name = "lying_shape_gives_wrong_numbers"
# breaks = "failure_kind"
# fails = ["how_it_fails"]
# message = "not what the grader measured: program_a"
#
# [[wrong]]
# name = "kind_at_the_last_backend"
# breaks = "failure_kind"
# fails = ["how_it_fails"]
# message = "not what the grader measured: program_b"
# ///
"""Find, by ablation, the first compiler stage that breaks each of three programs.

Each program below works when it runs eagerly, and goes wrong under torch.compile. The course
planted each failure on purpose (custom operators whose fake kernel lies about the output's shape,
a wrong decomposition): a real compiler bug cannot be relied on to stay in torch, these can. Run
each program with `backend="eager"`, `"aot_eager"` and `"aot_eager_decomp_partition"` (`python
ablate_stage.py BACKEND` runs all three programs with one backend) and fill in `FIRST_FAILING` and
`HOW_IT_FAILS`. The grader runs the same ablation itself and compares.
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


# BEGIN SOLUTION
FIRST_FAILING = {"program_a": "eager", "program_b": "aot_eager", "program_c": "aot_eager_decomp_partition"}
HOW_IT_FAILS = {"program_a": "exception", "program_b": "exception", "program_c": "wrong result"}
# END SOLUTION
# BEGIN STARTER
# # TODO: for each program, the first failing backend and how it fails there.
# FIRST_FAILING = {"program_a": None, "program_b": None, "program_c": None}
# HOW_IT_FAILS = {"program_a": None, "program_b": None, "program_c": None}
# END STARTER
# BEGIN FAIR observed_table
# ORDER = ("eager", "aot_eager", "aot_eager_decomp_partition")
# OBSERVED = {  # what `python ablate_stage.py BACKEND` printed, one backend after the other
#     "program_a": {"eager": "exception", "aot_eager": "exception", "aot_eager_decomp_partition": "exception"},
#     "program_b": {"eager": "ok", "aot_eager": "exception", "aot_eager_decomp_partition": "wrong result"},
#     "program_c": {"eager": "ok", "aot_eager": "ok", "aot_eager_decomp_partition": "wrong result"},
# }
# FIRST_FAILING = {name: next(b for b in ORDER if seen[b] != "ok") for name, seen in OBSERVED.items()}
# HOW_IT_FAILS = {name: OBSERVED[name][FIRST_FAILING[name]] for name in OBSERVED}
# END FAIR
# BEGIN FAIR ablated_in_code
# def first_failure(program):
#     expected = run(program)
#     for backend in ("eager", "aot_eager", "aot_eager_decomp_partition"):
#         torch._dynamo.reset()
#         try:
#             got = run(torch.compile(program, backend=backend))
#         except Exception:
#             return backend, "exception"
#         if not all(torch.allclose(g, e, rtol=1e-4, atol=1e-5) for g, e in zip(got, expected)):
#             return backend, "wrong result"
#     return None, None
#
#
# FOUND = {name: first_failure(program) for name, program in PROGRAMS.items()}
# FIRST_FAILING = {name: found[0] for name, found in FOUND.items()}
# HOW_IT_FAILS = {name: found[1] for name, found in FOUND.items()}
# END FAIR
# BEGIN WRONG same_lie_same_stage
# FIRST_FAILING = {"program_a": "eager", "program_b": "eager", "program_c": "aot_eager_decomp_partition"}
# HOW_IT_FAILS = {"program_a": "exception", "program_b": "exception", "program_c": "wrong result"}
# END WRONG
# BEGIN WRONG last_failing_stage
# FIRST_FAILING = {"program_a": "aot_eager_decomp_partition", "program_b": "aot_eager", "program_c": "aot_eager_decomp_partition"}
# HOW_IT_FAILS = {"program_a": "exception", "program_b": "exception", "program_c": "wrong result"}
# END WRONG
# BEGIN WRONG lying_shape_gives_wrong_numbers
# FIRST_FAILING = {"program_a": "eager", "program_b": "aot_eager", "program_c": "aot_eager_decomp_partition"}
# HOW_IT_FAILS = {"program_a": "wrong result", "program_b": "exception", "program_c": "wrong result"}
# END WRONG
# BEGIN WRONG kind_at_the_last_backend
# FIRST_FAILING = {"program_a": "eager", "program_b": "aot_eager", "program_c": "aot_eager_decomp_partition"}
# HOW_IT_FAILS = {"program_a": "exception", "program_b": "wrong result", "program_c": "wrong result"}
# END WRONG


# BEGIN GRADER
def _ablation():
    from autograder.lab import ABLATION_BACKENDS, ablate, first_failing

    found = {}
    for name, program in PROGRAMS.items():
        found[name] = first_failing(ablate(program, run, backends=ABLATION_BACKENDS[:3]))
    return found


_CACHE = {}


def _stages():
    if not _CACHE:
        _CACHE.update(_ablation())
    return _CACHE


def expected_stages():
    return {name: (stage.backend if stage else "none of eager, aot_eager, aot_eager_decomp_partition")
            for name, stage in _stages().items()}


def expected_kinds():
    return {name: (stage.status if stage else None) for name, stage in _stages().items()}


def calls(gen):
    return []
# END GRADER


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

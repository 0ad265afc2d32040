"""Reporting issues (chapter 8): run a program under each backend to find the stage that fails, and bisect the compiler."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch
import torch._dynamo
import torch._dynamo.exc
from .measurement import _detach
from .state import clean_state, refresh_decompositions

ABLATION_BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")


def _same(actual, expected, rtol: float = 1e-4, atol: float = 1e-5) -> str | None:
    """None when ``actual`` matches ``expected`` (tensors, numbers, lists, tuples, dicts); else how they differ."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor) or actual.shape != expected.shape:
            return f"expected a tensor of shape {tuple(expected.shape)}, got {getattr(actual, 'shape', type(actual).__name__)}"
        if not torch.allclose(actual.detach().double(), expected.detach().double(), rtol=rtol, atol=atol, equal_nan=True):
            worst = (actual.detach().double() - expected.detach().double()).abs().nan_to_num(float("inf")).max().item()
            return f"values differ from eager (largest difference {worst:.3g})"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"expected {len(expected)} results"
        return next((problem for problem in map(_same, actual, expected) if problem), None)
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return "expected the same keys"
        return next((problem for problem in (_same(actual[k], expected[k]) for k in expected) if problem), None)
    if isinstance(expected, float):
        return None if isinstance(actual, (int, float)) and abs(actual - expected) <= atol + rtol * abs(expected) else f"{actual!r} != {expected!r}"
    return None if actual == expected else f"{actual!r} != {expected!r}"


@dataclass
class Stage:
    """One backend of an ablation: "ok", "exception" (with the error) or "wrong result" (with how)."""
    backend: str
    status: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.backend:>28}: {self.status}" + (f" ({self.detail})" if self.detail else "")


def ablate(fn, driver=None, backends=ABLATION_BACKENDS[:3], stop_at_first: bool = True) -> list[Stage]:
    """Run ``driver(callable)`` (default: ``callable()``) with ``fn`` itself, then with ``fn`` compiled by
    each backend in turn, from a clean Dynamo state each time; compare each run with the eager one.

    Returns one ``Stage`` per backend tried; with ``stop_at_first`` it stops at the first that fails.
    """
    driver = driver or (lambda f: f())
    torch.manual_seed(0)
    expected = _detach(driver(fn))
    stages = []
    for backend in backends:
        clean_state()
        refresh_decompositions()
        torch.manual_seed(0)
        try:
            got = _detach(driver(torch.compile(fn, backend=backend)))
        except Exception as exc:  # noqa: BLE001 - a failing stage is the finding
            text = str(exc).strip().splitlines()
            stages.append(Stage(backend, "exception", f"{type(exc).__name__}: {text[0] if text else ''}"[:300]))
        else:
            problem = _same(got, expected)
            stages.append(Stage(backend, "wrong result" if problem else "ok", problem or ""))
        if stop_at_first and stages[-1].status != "ok":
            break
    clean_state()
    return stages


def first_failing(stages: list[Stage]) -> Stage | None:
    return next((stage for stage in stages if stage.status != "ok"), None)


def bisect(test_fn, quiet: bool = True):
    """``CompilerBisector.do_bisect(test_fn)`` from a clean state: the BisectionResult (backend, subsystem,
    bisect_number, debug_info) or None when every backend passes. ``quiet`` hides its progress lines."""
    import io

    from torch._inductor.compiler_bisector import CompilerBisector

    clean_state()
    refresh_decompositions()
    with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
        result = CompilerBisector.do_bisect(test_fn)
    clean_state()
    return result


@contextlib.contextmanager
def decompositions_taken_out(namespace: str):
    """Inductor's decompositions of the operators of ``namespace`` (a course's planted bug) out of its
    table for the duration, so that compiled code computes what those operators do; put back after."""
    from torch._inductor import decomposition

    table = decomposition.decompositions
    taken = {op: table.pop(op) for op in list(table) if getattr(op, "namespace", None) == namespace}
    refresh_decompositions()
    try:
        yield list(taken)
    finally:
        table.update(taken)
        refresh_decompositions()


def control_bisect(test_fn, namespace: str, last_backend: str | None = None, quiet: bool = True):
    """``bisect`` with the planted decompositions of ``namespace`` taken out: nothing is wrong any more,
    so a test that really compares the compiled block with the eager one lets the bisector find nothing
    (None). A test that answers from the bisector's state, or replays answers, names a culprit again.
    ``last_backend``: the bisector tries no backend after this one (the one the first bisection blamed;
    the ones after it compile C++, which a grading's own user may not be able to here)."""
    from torch._inductor.compiler_bisector import CompilerBisector

    original = CompilerBisector.__dict__["advance_backend"]

    def advance_backend(cls, curr_backend):
        return None if curr_backend == last_backend else original.__func__(cls, curr_backend)

    with decompositions_taken_out(namespace) as taken:
        if not taken:
            return "nothing planted"
        if last_backend is not None:
            CompilerBisector.advance_backend = classmethod(advance_backend)
        try:
            return bisect(test_fn, quiet=quiet)
        finally:
            CompilerBisector.advance_backend = original

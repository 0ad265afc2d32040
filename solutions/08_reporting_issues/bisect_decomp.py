# /// exercise
# format_version = 1
# title = "Bisect a wrong result down to one decomposition"
# syllabus = ["8.2"]
# entry = "block"
# # The planted bug is a decomposition in Inductor's table, found with Inductor's CompilerBisector.
# scan_allow = ["import:torch._inductor.decomposition", "write:torch._inductor.decomposition.decompositions", "import:torch._inductor.compiler_bisector"]
# starter_fails = ["bisection", "test_fn"]
# hints = [
#   "Run the file: it calls CompilerBisector.do_bisect(test_fn) and prints what it finds. It names a backend but no subsystem, although the decomposition subsystem is the culprit: the bisector's runs with a subsystem switched off are not really run.",
#   "The bisector calls test_fn many times, changing only what the compiler does (a backend, a subsystem switched off, how many decompositions to apply). test_fn must compile afresh every time, or Dynamo reuses the code it compiled on an earlier call and test_fn answers for that earlier configuration.",
#   "Start test_fn with torch._dynamo.reset() (lesson section 8.2), keep comparing the compiled block with block run eagerly, then run the file again and copy the BisectionResult into ANSWERS.",
#   "ANSWERS: backend and subsystem as printed, bisect_number as an int, and operator as the op='...' inside debug_info (e.g. \"course.squash\").",
# ]
#
# [[checks]]
# kind = "answers"
# name = "bisection"
# constant = "ANSWERS"
# truth = "expected_bisection"
# points = 3
#
# [[checks]]
# kind = "bisect"
# name = "test_fn"
# function = "test_fn"
# agree_with = "bisection"
# control = "course"
# points = 2
#
# [[requirements]]
# id = "trusted_test"
# text = "`test_fn()` answers for the compiler as the bisector has set it up for that call (True when the compiled `block` gives what `block` gives eagerly), so that bisecting with it finds what the grader's own bisection finds."
# checks = ["test_fn"]
#
# [[requirements]]
# id = "bisection_read"
# text = "`ANSWERS` holds the bisector's result: `backend` and `subsystem` as it prints them, `bisect_number` as an int, and `operator`, the `op='...'` in its `debug_info`."
# checks = ["bisection"]
#
# [[fair]]
# name = "public_reset"
# why = "torch.compiler.reset() and a maximum absolute difference instead of torch._dynamo.reset() and allclose"
#
# [[fair]]
# name = "fresh_function_eager_first"
# why = "computes the eager result first and compiles a new wrapper after resetting, with assert_close caught"
#
# [[wrong]]
# name = "reset_not_called"
# breaks = "trusted_test"
# fails = ["test_fn"]
# message = "the grader's own bisection finds"
#
# [[wrong]]
# name = "default_backend_named"
# breaks = "bisection_read"
# fails = ["bisection"]
# message = "not what the grader measured: backend"
#
# [[wrong]]
# name = "python_name_of_operator"
# breaks = "bisection_read"
# fails = ["bisection"]
# message = "not what the grader measured: operator"
# ///
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
    # BEGIN SOLUTION
    torch._dynamo.reset()
    expected = block(X)
    return torch.allclose(torch.compile(block)(X), expected, atol=1e-5)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: can the bisector trust what this test answers? (It calls test_fn many times.)
    # expected = block(X)
    # return torch.allclose(torch.compile(block)(X), expected, atol=1e-5)
    # END STARTER
    # BEGIN FAIR public_reset
    # torch.compiler.reset()
    # difference = (torch.compile(block)(X) - block(X)).abs().max()
    # return bool(difference < 1e-4)
    # END FAIR
    # BEGIN FAIR fresh_function_eager_first
    # expected = block(X)
    # torch._dynamo.reset()
    # compiled_block = torch.compile(block)
    # try:
    #     torch.testing.assert_close(compiled_block(X), expected, rtol=1e-4, atol=1e-5)
    # except AssertionError:
    #     return False
    # return True
    # END FAIR
    # BEGIN WRONG reset_not_called
    # torch._dynamo.reset  # looks like the reset, but nothing calls it
    # expected = block(X)
    # return torch.allclose(torch.compile(block)(X), expected, atol=1e-5)
    # END WRONG


# BEGIN SOLUTION
ANSWERS = {"backend": "aot_eager_decomp_partition", "subsystem": "decomposition", "bisect_number": 6, "operator": "course.squash"}
# END SOLUTION
# BEGIN STARTER
# # TODO: fill in from the BisectionResult.
# ANSWERS = {"backend": None, "subsystem": None, "bisect_number": None, "operator": None}
# END STARTER
# BEGIN WRONG default_backend_named
# ANSWERS = {"backend": "inductor", "subsystem": "decomposition", "bisect_number": 6, "operator": "course.squash"}
# END WRONG
# BEGIN WRONG python_name_of_operator
# ANSWERS = {"backend": "aot_eager_decomp_partition", "subsystem": "decomposition", "bisect_number": 6, "operator": "squash"}
# END WRONG


# BEGIN GRADER
import re  # noqa: E402


def summary(result):
    """A BisectionResult as the four answers (None when the bisector found no failing backend)."""
    if result is None:
        return {"backend": None, "subsystem": None, "bisect_number": None, "operator": None}
    found = re.search(r"op='([^']+)'", result.debug_info or "")
    return {"backend": result.backend, "subsystem": result.subsystem, "bisect_number": result.bisect_number,
            "operator": found[1] if found else None}


def expected_bisection():
    from autograder.lab import bisect

    return summary(bisect(test_fn))


def calls(gen):
    return []
# END GRADER


if __name__ == "__main__":
    print("eager:", block(X))
    print("compiled (backend='aot_eager_decomp_partition'):", torch.compile(block, backend="aot_eager_decomp_partition")(X))
    torch._dynamo.reset()
    result = CompilerBisector.do_bisect(test_fn)
    print(result)

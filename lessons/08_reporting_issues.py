# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 8 Reporting issues
#
# Sooner or later a program works eagerly and fails under torch.compile: it raises, or it returns
# different numbers. Before you can report it (or work around it), you need three answers. By the
# end you will be able to find them:
#
# - **which stage** of the compiler is at fault: Dynamo, AOTAutograd, the decompositions, or
#   Inductor's code generation (8.1, ablation);
# - **which part** of that stage, and which operation (8.2, bisection);
# - **the smallest program** that still fails the same way, which anyone can run (8.3), with the
#   tools torch offers for it (the minifier's levels, a trace's `fx_graph_runnable`).
#
# A real compiler bug cannot be relied on to stay in torch: it gets fixed. So every failure in this
# lesson and its exercises is **planted by the course**, with tools torch gives anyone: a custom
# operator whose registration lies (about its output's shape, or about mutating its input), and
# decompositions that compute something else. They fail the way real bugs fail, at a known stage.
# Every number below is measured by the cell that states it and `assert`ed there; a fact a torch
# release may change is a named drift alarm, `drift("...")`.

# %%
import logging
import re
import sys
import textwrap
from pathlib import Path

import torch
from torch._inductor import decomposition as inductor_decompositions
from torch._inductor.compiler_bisector import CompilerBisector

from autograder import check, hint
from autograder.lab import ABLATION_BACKENDS, ablate, bisect, drift, first_failing, raised_by_hand, run_reproducer

print(torch.__version__)
BUILD = Path("build").resolve()  # scratch space for this lesson (git ignores build/)
BUILD.mkdir(exist_ok=True)


# %% [markdown]
# ## 8.1 Ablation (which stage fails: eager, aot_eager, inductor)
#
# `torch.compile(fn)` runs a pipeline, and its `backend=` argument says where the pipeline stops.
# Each debugging backend below adds one stage to the one before:
#
# | backend | runs |
# | --- | --- |
# | `"eager"` | Dynamo only: captures the graph, then runs it with ordinary PyTorch |
# | `"aot_eager"` | + AOTAutograd: re-traces the graph with fake tensors, functionalizes it (no mutation, no aliasing), builds the backward |
# | `"aot_eager_decomp_partition"` | + Inductor's decompositions (big ops rewritten into small ones) and the forward/backward partitioner |
# | `"inductor"` | + Inductor's code generation: fused C++ or Triton kernels (the default) |
#
# Run the failing program with each, in that order: the **first** backend that misbehaves names
# the guilty stage, since every later backend includes it. Then, if Inductor is at fault, vary its
# `mode=` and `dynamic=` to narrow it further. (Of the modes, `"reduce-overhead"` uses CUDA graphs,
# which need a GPU: outside this CPU course; `"max-autotune"` tries more kernel variants.)
#
# A planted Inductor-only failure: a custom operator that adds one to its input *in place*, but is
# registered with `mutates_args=()`, a promise that it changes nothing. Every stage before code
# generation keeps the program's order of operations and reads the buffer the operator changed.
# Inductor believes the promise: to it, `y = x * 2` cannot have changed, so it fuses that
# multiplication into the final add and computes it again from the input, never reading the changed
# buffer.
# `ablate(fn, driver, backends)` (from the course's probe) runs the program eagerly, then under each
# backend from a clean state, and compares (the Inductor run takes several seconds):

# %%
@torch.library.custom_op("lesson::bump_", mutates_args=())  # a lie: it mutates x
def bump_(x: torch.Tensor) -> torch.Tensor:
    x.add_(1)
    return x.sum().reshape(1)


@bump_.register_fake
def _(x):
    return x.new_empty(1)


def plus_total(x):
    y = x * 2
    return y + bump_(y)


inputs = [torch.ones(3), torch.arange(3.0)]
stages = ablate(plus_total, lambda f: [f(x.clone()) for x in inputs], backends=ABLATION_BACKENDS, stop_at_first=False)
print("\n".join(map(str, stages)))
assert [s.status for s in stages][:3] == ["ok", "ok", "ok"]  # the stages before code generation keep the order
drift("a lying mutates_args gives a wrong result under Inductor only", [s.status for s in stages])
assert first_failing(stages).backend == "inductor"

# %% [markdown]
# Only Inductor is wrong: the bug (here, the lie) lives in what code generation does with the
# graph. The generated code shows how: the fused kernel that computes the output takes the graph's
# input, not the buffer the operator changed, and multiplies it by 2 again (this cell runs Inductor
# once more):

# %%
from torch._inductor.utils import run_and_get_code

torch._dynamo.reset()
result, sources = run_and_get_code(torch.compile(plus_total), torch.ones(3))
calls = [line.strip() for code in sources for line in code.splitlines() if re.match(r"\s*cpp_fused_\w+\(", line)]
print("eager:", plus_total(torch.ones(3)).tolist(), "| inductor:", result.tolist())
print("kernel calls:", calls)
assert plus_total(torch.ones(3)).tolist() != result.tolist()
drift("Inductor recomputes x * 2 from the graph input inside the fused add",
      any(call.startswith("cpp_fused_add_mul") and "arg0_1" in call for call in calls))

# %% [markdown]
# `torch.library.opcheck(bump_, (torch.ones(3),))` would have caught this lie directly
# (chapter 2.4).
#
# The same ablation on a failure planted earlier in the pipeline: a custom operator whose *fake*
# kernel (what the compiler uses to know shapes without computing) claims a 1-D result while the
# real one returns 2-D. Dynamo itself propagates the wrong shape, so even `backend="eager"` fails:

# %%
@torch.library.custom_op("lesson::outer_sum", mutates_args=())
def outer_sum(x: torch.Tensor) -> torch.Tensor:
    return x[:, None] + x[None, :]


@outer_sum.register_fake
def _(x):
    return x.new_empty(x.shape[0])  # a lie: the result is (n, n)


def row_max(x):
    return outer_sum(x).amax(dim=1)


fake_tensor_log = logging.getLogger("torch._subclasses.fake_tensor")
fake_tensor_log.disabled = True  # it would print the failing shape function's traceback before the error
stages = ablate(row_max, lambda f: f(torch.arange(4.0)))
fake_tensor_log.disabled = False
print("\n".join(map(str, stages)))
assert [(s.backend, s.status) for s in stages] == [("eager", "exception")]
assert row_max(torch.arange(4.0)).shape == (4,)  # eagerly the program works: the failure is in the registration

# %% [markdown]
# The eager run works; Dynamo's trace fails (ablation stops at the first failure). The error is
# not in the code you wrote but in a registration: that is what "Dynamo stage" means here.
#
# ### Exercise: ablate_stage
#
# Three programs with planted failures: find the first backend that fails for each, and how it
# fails (an exception or a wrong result). Edit
# [exercises/08_reporting_issues/ablate_stage.py](../exercises/08_reporting_issues/ablate_stage.py)
# (`python ablate_stage.py BACKEND` runs the three programs under one backend):

# %%
# !{sys.executable} ../exercises/08_reporting_issues/ablate_stage.py eager 2>&1 | grep -v "^[EW][0-9]"

# %%
check("ablate_stage")

# %% [markdown]
# ## 8.2 Bisection
#
# Bisection halves the search space until one step is left. There are two kinds:
#
# - **across versions**: a program that worked on one torch release and fails on a later one.
#   Install nightlies in between (`pip install --pre torch==2.X.0.devYYYYMMDD ...`) and halve the
#   range of dates, or `git bisect` a source build. The first bad nightly points at the change.
# - **inside one version**: `torch._inductor.compiler_bisector.CompilerBisector`. Its
#   `do_bisect(test_fn)` calls `test_fn()` again and again (`True` means "correct"). It first tries
#   each backend, as an ablation does; in the first failing one it switches *subsystems* off one
#   at a time (for `aot_eager_decomp_partition`: common-subexpression elimination, then the
#   decompositions; for `inductor`: graph passes, config changes, the lowerings); when switching
#   one off fixes the failure, it bisects how many times that subsystem may be applied before the
#   failure appears. The answer is a `BisectionResult`: backend, subsystem, `bisect_number` (how
#   many applications were fine), and `debug_info` (what the failing application was).
#
# While it runs, `torch.compile` ignores its `backend=` argument and uses the one being tested.
# The same thing exists from the shell: `python -m torch._inductor.compiler_bisector run python
# my_test.py` treats a non-zero exit status as "bad", and tells the script the backend in
# `TORCH_COMPILE_BACKEND`.
#
# A planted failure for it: a decomposition of a custom operator, registered in Inductor's table,
# that computes something else. (Inductor copies its table when it first needs it, so a
# decomposition registered later needs `fast_random_decomps.cache_clear()` to be seen.)

# %%
@torch.library.custom_op("lesson::soft_sign", mutates_args=())
def soft_sign(x: torch.Tensor) -> torch.Tensor:
    return x / (1 + x.abs())


@soft_sign.register_fake
def _(x):
    return torch.empty_like(x)


def wrong_soft_sign(x):
    return x / (1 + x)  # planted bug: forgot abs


inductor_decompositions.decompositions[torch.ops.lesson.soft_sign.default] = wrong_soft_sign
inductor_decompositions.fast_random_decomps.cache_clear()

MIX = torch.linspace(-1.0, 1.0, 36).reshape(6, 6)
BATCH = torch.linspace(-2.0, 2.0, 18).reshape(3, 6)


def layer(x):
    h = torch.nn.functional.layer_norm(x @ MIX, (6,))
    return torch.nn.functional.silu(soft_sign(h) * 4)


def test_fn():
    torch._dynamo.reset()  # compile afresh: the bisector changed the compiler since the last call
    return torch.allclose(torch.compile(layer)(BATCH), layer(BATCH), atol=1e-5)


torch._dynamo.reset()
result = CompilerBisector.do_bisect(test_fn)
print(result)
assert result.backend == "aot_eager_decomp_partition" and result.subsystem == "decomposition"
assert "lesson.soft_sign" in result.debug_info and result.bisect_number >= 1

# %% [markdown]
# The progress lines above show each step: eager and aot_eager pass, `aot_eager_decomp_partition`
# fails; disabling CSE does not fix it, disabling the decompositions does; then it bisects the
# number of decompositions applied until the one that breaks the result: `lesson.soft_sign`,
# after `bisect_number` good ones (layer_norm and silu decompose too).
#
# `test_fn` must be a test the bisector can trust. It is called under configurations that differ
# only inside the compiler, so it must **compile afresh every time**: the `torch._dynamo.reset()`
# above. Without it Dynamo reuses the code compiled on an earlier call (the guards check the
# inputs and the backend, not the bisector's state), `test_fn` answers for that earlier
# configuration, and the bisection goes astray:

# %%
def stale_test_fn():
    return torch.allclose(torch.compile(layer)(BATCH), layer(BATCH), atol=1e-5)


stale = bisect(stale_test_fn)  # the probe's bisect: do_bisect from a clean state, quietly
print(stale)
assert stale.backend == "aot_eager_decomp_partition" and stale.subsystem is None

# %% [markdown]
# The backend is still right (it changes between calls, and the cache notices), but no subsystem
# is found.
#
# ### Exercise: bisect_decomp
#
# Make a `test_fn` the bisector can trust, bisect a wrong result down to one decomposition, and
# report what the bisector found. Edit
# [exercises/08_reporting_issues/bisect_decomp.py](../exercises/08_reporting_issues/bisect_decomp.py):

# %%
# !{sys.executable} ../exercises/08_reporting_issues/bisect_decomp.py 2>&1 | tail -n 3

# %%
check("bisect_decomp")

# %% [markdown]
# ## 8.3 Making a minimal reproducer
#
# A bug report is only as good as its reproducer: a single file that anyone can run, that fails
# the same way as your program, and that contains nothing else. Concretely:
#
# - **standalone**: imports torch and the standard library only; no data files, no model
#   checkpoint, no other package; one process; random inputs made in the file;
# - **the same failure**: the same exception (type and message), or the same kind of wrong
#   result, under the same backend, and no failure under the stage before it (state which backend
#   fails first: the ablation of 8.1);
# - **the same conditions**: whatever the failure needs must stay: `requires_grad` (training runs
#   AOTAutograd's backward), `dynamic=` and the shapes that trigger it, configuration flags, context
#   managers (autocast, no_grad), custom operators, tensor subclasses;
# - **small**: everything else goes, until removing any line makes the failure disappear. Under
#   100 lines is the usual advice; most are far shorter.
#
# The method: run the ablation, read the traceback under the first failing backend, then cut in
# big pieces (the training loop, the data pipeline, logging), re-running after each cut to check
# that it still fails the same way and still passes under the earlier stage. Replace the model by
# the smallest function that calls the failing operation, and real data by `torch.randn` of the
# same shapes and dtypes.
#
# torch can help in two ways. A trace's `fx_graph_runnable` (lesson 7.2) is a standalone script of the
# graph Inductor received: for a failure inside Inductor it is often a reproducer already, minus
# the Python around the graph. And the *minifier*: `TORCHDYNAMO_REPRO_AFTER="dynamo"` (or `"aot"`,
# after AOTAutograd) makes Dynamo save the graph it compiles, and `TORCHDYNAMO_REPRO_LEVEL` says
# *what* it writes and *when*:
#
# | level | writes |
# | --- | --- |
# | 1 | `repro.py`, the graph as a script, when the compile fails |
# | 2 (the default) | `minifier_launcher.py` when the compile fails: run it to shrink the graph automatically |
# | 3 | `minifier_launcher.py` always (for a crash that kills the process, such as a segfault) |
# | 4 | `minifier_launcher.py` when the compiled graph's *result* differs from eager |
#
# A wrong result, the failure of this lesson's programs, needs level 4; a compile error, level 2.
# Both variables are read when torch is imported; their values are in `torch._dynamo.config`:

# %%
print("repro_after:", torch._dynamo.config.repro_after, "| repro_level:", torch._dynamo.config.repro_level)
drift("TORCHDYNAMO_REPRO_LEVEL is 2 by default", torch._dynamo.config.repro_level)

# %% [markdown]
# `TORCHDYNAMO_REPRO_FORWARD_ONLY=1` checks the forward pass only, when the backward gets in the way.
# The files go to `torch_compile_debug/`. The minifier does not shrink the Python around the graph,
# and a planted failure like the ones here (in a registration) is easier to cut by hand. Attach the
# trace (7.2) to the report as well.
#
# The course's checker runs a reproducer the way a reader of the report would: in a fresh
# interpreter it imports the file, calls `fn(*make_inputs())` eagerly, then compiled with each
# backend, and compares. Here is a reproducer of a planted wrong decomposition (a wrong result, not
# an exception), written to a file and checked:

# %%
REPRO = BUILD / "smooth_step_repro.py"
REPRO.write_text(textwrap.dedent('''\
    import torch
    from torch._inductor import decomposition


    @torch.library.custom_op("lesson::smooth_step", mutates_args=())
    def smooth_step(x: torch.Tensor) -> torch.Tensor:
        t = x.clamp(0, 1)
        return t * t * (3 - 2 * t)


    @smooth_step.register_fake
    def _(x):
        return torch.empty_like(x)


    def wrong_smooth_step(x):
        t = x.clamp(0, 1)
        return t * t * (3 - t)


    decomposition.decompositions[torch.ops.lesson.smooth_step.default] = wrong_smooth_step
    decomposition.fast_random_decomps.cache_clear()


    def fn(x):
        return smooth_step(x)


    def make_inputs():
        return (torch.linspace(-0.5, 1.5, 9),)
'''))
report = run_reproducer(str(REPRO), backends=["aot_eager_decomp_partition", "eager", "aot_eager"], culprit="lesson::smooth_step")
for backend, run in report["runs"].items():
    print(f"{backend:>28}: {run['status']} {run.get('message', '')}")
print("with that decomposition removed:", report["culprit"]["status"])
assert report["runs"]["aot_eager_decomp_partition"]["status"] == "mismatch"
assert report["runs"]["eager"]["status"] == report["runs"]["aot_eager"]["status"] == "ok"
assert report["culprit"]["status"] == "ok"

# %% [markdown]
# Wrong under `aot_eager_decomp_partition`, right under `eager` and `aot_eager`, and right again
# once the checker removes the decomposition of `lesson::smooth_step`: it reproduces *that* bug,
# not some other one.
#
# A "reproducer" that raises the expected error itself proves nothing about torch. The checker
# looks at where the exception starts: its innermost frame must be inside torch, and torch must
# not have been asked to raise it (`torch._check(False, ...)`, `torch.testing.assert_close`). Here
# the decomposition raises an error by hand, with a torch-looking message:

# %%
FAKE = BUILD / "fake_repro.py"
FAKE.write_text(REPRO.read_text().replace(
    "    return t * t * (3 - t)\n",
    "    raise RuntimeError(\"Attempting to broadcast a dimension of length 9\")\n"))
fake = run_reproducer(str(FAKE), backends=["aot_eager_decomp_partition", "eager", "aot_eager"])
named = fake["runs"]["aot_eager_decomp_partition"]
print(named["type"], "|", raised_by_hand(named))
assert named["status"] == "raised" and named["type"] == "BackendCompilerFailed"
assert "your file raises it itself" in raised_by_hand(named)

# %% [markdown]
# Under the backend it raises the right type with the right message, yet the traceback ends in
# the reproducer's own `raise`: rejected.
#
# ### Exercise: minimal_repro
#
# A 90-line training script crashes under torch.compile. Cut it down to a reproducer of at most 30
# lines that fails the same way, under the first failing backend, and passes under the earlier
# ones. Edit
# [exercises/08_reporting_issues/minimal_repro.py](../exercises/08_reporting_issues/minimal_repro.py):

# %%
# !{sys.executable} ../exercises/08_reporting_issues/minimal_repro.py 2>&1 | grep -v "^[EWV][0-9]" | tail -n 5

# %%
check("minimal_repro")

# %% [markdown]
# ## Summary
#
# - Ablate first: run under `eager`, `aot_eager`, `aot_eager_decomp_partition` and `inductor`, in
#   that order; the first that fails names the stage (8.1).
# - Inside a stage, `CompilerBisector.do_bisect(test_fn)` finds the subsystem and the one
#   application that breaks the result, with a `test_fn` that compiles afresh on every call (8.2).
# - Cut the program down to a standalone file that fails the same way under the same backend and
#   passes under the earlier ones; `fx_graph_runnable` and the minifier (`TORCHDYNAMO_REPRO_LEVEL=4`
#   for a wrong result) can give you a head start (8.3).

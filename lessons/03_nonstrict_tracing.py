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
# # 3 The non-strict tracing programming model
#
# Dynamo (chapter 1) reads your function's bytecode. What it cannot put in the graph it keeps as
# Python, and it guards almost every assumption it made (lesson 1.3.2 names the few it does not by
# default), so a compiled function means what the Python meant. *Non-strict tracing* is the other
# way to get a graph: run the function once, with stand-in tensors, and write down every tensor
# operation that happens. Python itself (the `if`s, the loops, the prints, the reads of globals)
# runs during that one run and leaves no trace in the graph. Nothing is guarded. The graph is then
# replayed on later inputs as it is.
#
# You meet non-strict tracing in three places:
#
# - `torch.fx.experimental.proxy_tensor.make_fx`, the tracer this lesson uses directly;
# - AOTAutograd, which traces every graph Dynamo hands to `aot_eager` or Inductor once more, this
#   time non-strictly (safe there: Dynamo's graph has every input explicit);
# - the escape hatch `torch._dynamo.nonstrict_trace` of chapter 2: Dynamo does not look inside the
#   function, and AOTAutograd traces through it non-strictly.
#
# (A custom operator, the other escape hatch of chapter 2, is not traced at all: its real kernel
# runs on every call, and what the compiler trusts is its fake kernel and its schema, lesson 2.4.)
#
# A non-strict trace is right only for a **pure** function. When it is not, the result is not an
# error but a silently wrong answer. By the end you will be able to:
#
# - say what a non-strict trace does with a global tensor (3.1.1), a print (3.1.2), a mutated list
#   (3.1.3) and a data pointer (3.1.4);
# - say what it does with a Python number and a shape (3.2);
# - make a function safe to trace: everything in through parameters, everything out through the
#   return value.
#
# As in chapter 1, every number below is measured by the cell that states it and `assert`ed there;
# a fact a torch release may change is a named drift alarm, `drift("...")`.

# %%
import contextlib
import io
import sys

import matplotlib.pyplot as plt
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from autograder import check, hint
from autograder.lab import drift, fullgraph_error, tally_calls

torch.manual_seed(0)
print(torch.__version__)


def trace(fn, *args, mode="fake"):
    """Trace `fn` non-strictly on `args` and return the graph (a torch.fx.GraphModule)."""
    return make_fx(fn, tracing_mode=mode, _allow_non_fake_inputs=True)(*args)


def ops(gm):
    """The operations a traced graph calls, in order."""
    return [str(node.target) for node in gm.graph.nodes if node.op == "call_function"]


def printed(fn, *args):
    """Call fn(*args); return its result and what it printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = fn(*args)
    return result, buffer.getvalue()


# %% [markdown]
# `make_fx(fn, tracing_mode="fake")` runs `fn` on *fake* tensors: tensors with a shape, a dtype
# and a device but no data. With `_allow_non_fake_inputs=True` it also accepts real tensors that
# the function picks up on its own (we will need that in 3.1.1). Here is the smallest example, a
# function with a Python `if` on a flag:

# %%
def scale_or_shift(x, double):
    if double:                  # a Python bool: decided while tracing
        return x * 2
    return x + 1


gm = trace(scale_or_shift, torch.ones(3), True)
print(gm.code)
print("replayed with double=False:", gm(torch.ones(3), False), " eager:", scale_or_shift(torch.ones(3), False))
assert ops(gm) == ["aten.mul.Tensor"]
assert gm(torch.ones(3), False).tolist() == [2.0, 2.0, 2.0]  # the branch taken while tracing, always

# %% [markdown]
# The graph has one multiplication and a placeholder for `double` that nothing reads. Dynamo, on
# the same function, guards on `double` and compiles a second graph when it changes:

# %%
t = tally_calls(scale_or_shift, [(torch.ones(3), True), (torch.ones(3), False)])
print(t, t.recompile_reasons)
assert t.graphs == 2 and t.recompiles == 1

# %% [markdown]
# ## 3.1 Pure functions
#
# A function is pure when
#
# 1. everything it reads comes in through its parameters (no globals, no attributes of objects
#    that change later);
# 2. everything it produces goes out through its return value: no printing, logging or writing
#    files, no changes to Python objects that outlive the call (mutating *input tensors* with torch
#    operations is tolerated: that is a tensor operation the graph records);
# 3. it gives the same result for the same inputs.
#
# For such a function, one run with stand-in tensors tells you everything: the graph is the
# function. Each of the next four examples breaks one of these rules, and each shows what the
# trace does with it. `nonstrict_trace` (chapter 2, 2.3) relies on the same rules, and Dynamo does
# not check them there either. A custom operator (2.4) relies on other promises: a schema that
# says truthfully what it mutates, and a fake kernel that returns the right shapes.

# %% [markdown]
# ### 3.1.1 Example 1: no explicit input (reading a global tensor)
#
# `shift` reads a module-level tensor. A fake tensor mode refuses real tensors it did not make
# itself, so plain `make_fx` stops:

# %%
BIAS = torch.tensor([1.0, 2.0, 3.0])


def shift(x):
    return x + BIAS


try:
    make_fx(shift, tracing_mode="fake")(torch.zeros(3))
    error = None
except AssertionError as exc:
    error = str(exc)
print(error[:100])
assert error is not None and "FakeTensor" in error  # the fake mode refuses the real global

# %% [markdown]
# Allowed to go on, the tracer puts the global into the graph as a constant (a `get_attr` node,
# printed as `_tensor_constant0` here). The graph has one input, `x`:

# %%
gm = trace(shift, torch.zeros(3))
print(gm.code)
placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
constants = [n.name for n in gm.graph.nodes if n.op == "get_attr"]
print("inputs:", placeholders, "| constants:", constants)
assert len(placeholders) == 1 and len(constants) == 1  # x, and the global as a constant of the graph

# %% [markdown]
# Now the program moves on and *rebinds* the global to a new tensor. Eager Python reads the new
# one; the graph still holds the old tensor:

# %%
BIAS = torch.tensor([10.0, 20.0, 30.0])
print("eager:", shift(torch.zeros(3)).tolist(), " graph:", gm(torch.zeros(3)).tolist())
assert shift(torch.zeros(3)).tolist() == [10.0, 20.0, 30.0]
assert gm(torch.zeros(3)).tolist() == [1.0, 2.0, 3.0]  # stale, and no error

# %% [markdown]
# The constant is the same tensor *object* the global named at trace time, not a copy. Changing
# that object in place is therefore seen by the graph; rebinding the name is not. Do not build on
# this: whether a backend keeps the object or copies its values is up to the backend.

# %%
BIAS = torch.tensor([1.0, 2.0, 3.0])
gm = trace(shift, torch.zeros(3))
BIAS.add_(100)  # in place: the graph's constant is this very tensor
print("after an in-place update, graph:", gm(torch.zeros(3)).tolist())
assert gm(torch.zeros(3)).tolist() == [101.0, 102.0, 103.0]

# %% [markdown]
# The same happens behind an escape hatch. Here the global is read inside a
# `torch._dynamo.nonstrict_trace` helper, the function is compiled, and the global is rebound
# before each of three calls. With the `eager` backend nothing traces the helper (Dynamo calls it
# as Python every time), so it looks fine. With `aot_eager`, AOTAutograd traces it once:

# %%
OFFSET = torch.zeros(3)


@torch._dynamo.nonstrict_trace
def add_offset(x):
    return x + OFFSET           # a global read inside the escape hatch


def model(x):
    return add_offset(x) * 2


def three_calls(backend):
    global OFFSET
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend)
    firsts = []
    for value in (0.0, 1.0, 2.0):
        OFFSET = torch.full((3,), value)
        firsts.append(compiled(torch.zeros(3))[0].item())
    return firsts


print("eager backend:    ", three_calls("eager"))
print("aot_eager backend:", three_calls("aot_eager"))
assert three_calls("eager") == [0.0, 2.0, 4.0]
assert three_calls("aot_eager") == [0.0, 0.0, 0.0]  # stale forever

# %% [markdown]
# Inductor, which also traces through AOTAutograd, does not even get that far on torch 2.13: it
# meets the real tensor in a fake-tensor world and stops compiling (this cell takes a few seconds).

# %%
torch._dynamo.reset()
try:
    torch.compile(model)(torch.zeros(3))
    error = None
except Exception as exc:
    error = exc
print(type(error).__name__, "-", str(error).splitlines()[0][:110])
drift("Inductor refuses a global tensor read inside nonstrict_trace", (type(error).__name__, "FakeTensor" in str(error)))

# %% [markdown]
# The fix is rule 1: the tensor that changes becomes a parameter, and the caller, which runs as
# Python on every call, passes the current one in. Traced once, the graph has two inputs and
# follows every new value:

# %%
def shift_pure(x, bias):
    return x + bias


gm = trace(shift_pure, torch.zeros(3), BIAS)
for value in (1.0, 5.0):
    BIAS = torch.full((3,), value)
    assert torch.equal(gm(torch.zeros(3), BIAS), shift_pure(torch.zeros(3), BIAS))
print(gm.code)
assert ops(gm) == ["aten.add.Tensor"] and not [n for n in gm.graph.nodes if n.op == "get_attr"]

# %% [markdown]
# ### Exercise: pure_global_offset
#
# `calibrate`, the traced part of `predict`, reads the sensor's zero point from a global that a
# calibration job keeps replacing. The grader traces `calibrate` itself with `make_fx` on the
# first call, rebinds the global before every call, and compares each result with the program run
# eagerly. Edit
# [exercises/03_nonstrict_tracing/pure_global_offset.py](../exercises/03_nonstrict_tracing/pure_global_offset.py)
# and run the check; `hint("pure_global_offset")` gives hints one at a time. The file, run as it
# is, traces `calibrate` and compares the replayed graph with eager Python for three zero points:

# %%
# !{sys.executable} ../exercises/03_nonstrict_tracing/pure_global_offset.py 2>&1 | tail -n 4

# %%
check("pure_global_offset")

# %% [markdown]
# ### 3.1.2 Example 2: a side effect (printing)
#
# A print is Python. While tracing it runs once, and what it prints is about the stand-in tensor,
# not about your data. The graph has no print in it, so replaying it prints nothing:

# %%
def log_and_double(x):
    print("got", x)
    return x * 2


gm, at_trace = printed(trace, log_and_double, torch.arange(3))
_, at_replay = printed(gm, torch.arange(3))
print("printed while tracing:", repr(at_trace))
print("printed by the graph: ", repr(at_replay))
assert "FakeTensor" in at_trace and at_replay == ""  # it printed the stand-in, once

# %% [markdown]
# Dynamo handles the same print differently: it cannot put it in a graph either, so by default it
# breaks the graph there and runs the print as Python on every call (chapter 2 shows how to avoid
# the break). Two calls, two lines:

# %%
out, seen = printed(lambda: tally_calls(log_and_double, [(torch.arange(3),), (torch.arange(3),)]))
print(out, "| printed:", repr(seen))
assert seen.count("got tensor([0, 1, 2])") == 2

# %% [markdown]
# The non-strict fix is rule 2: return what you want to report, and let the caller, plain Python,
# print it.
#
# ### Exercise: pure_print_rows
#
# `standardize` is traced and prints a log line for each batch, which appears only once. Make
# every batch log its line again, with the same text. Edit
# [exercises/03_nonstrict_tracing/pure_print_rows.py](../exercises/03_nonstrict_tracing/pure_print_rows.py).
# Run as it is, the file prepares three batches with a traced `standardize`:

# %%
# !{sys.executable} ../exercises/03_nonstrict_tracing/pure_print_rows.py 2>&1 | tail -n 6

# %%
check("pure_print_rows")

# %% [markdown]
# ### 3.1.3 Example 3: a side effect (mutating an input list)
#
# `take_first` pops the first tensor off the list it is given and adds it to `x`. Eagerly, the
# caller's list shrinks by one on each call:

# %%
def take_first(x, pending):
    update = pending.pop(0)
    return x + update


pending = [torch.ones(3), torch.full((3,), 5.0)]
lengths = []
for _ in range(2):
    take_first(torch.zeros(3), pending)
    lengths.append(len(pending))
print("eager, length after each call:", lengths)
assert lengths == [1, 0]

# %% [markdown]
# Traced, the list is flattened into its tensors, which become graph inputs, and the function runs
# on a rebuilt copy of the list. The programming-model page on the non-strict tracing model says
# the caller's list shrinks during tracing; on torch 2.13 it does not, because the pop happens to
# that copy. The graph then simply adds the input at the position the trace used, and never
# touches the list:

# %%
pending = [torch.ones(3), torch.full((3,), 5.0)]
gm = trace(take_first, torch.zeros(3), pending)
after_trace = len(pending)
results, lengths = [], []
for _ in range(2):
    results.append(gm(torch.zeros(3), pending)[0].item())
    lengths.append(len(pending))
print(gm.code)
print("length after tracing:", after_trace, "| after each graph call:", lengths, "| results:", results)
assert lengths == [after_trace, after_trace]  # the graph never touches the list
assert results == [1.0, 1.0]  # eagerly: 1.0, then 5.0
drift("make_fx traces a copy of an input list", after_trace)  # 2: the caller's list did not shrink while tracing

# %% [markdown]
# Two differences from eager, both silent: the list never shrinks, and every call uses the same
# element. The fix is again to keep the side effect in Python: the caller pops, and the traced
# function receives the tensor.
#
# ### Exercise: pure_list_pop
#
# `apply_update` is traced and pops its update from the caller's queue. The grader passes the same
# queue to every call and checks both the results and the updates left after each call.
# Edit [exercises/03_nonstrict_tracing/pure_list_pop.py](../exercises/03_nonstrict_tracing/pure_list_pop.py):

# %%
# !{sys.executable} ../exercises/03_nonstrict_tracing/pure_list_pop.py 2>&1 | tail -n 4

# %%
check("pure_list_pop")

# %% [markdown]
# ### 3.1.4 No direct data_ptr manipulation
#
# A tensor's `data_ptr()` is the address of its memory: a fact about one particular run, not a
# value a graph can compute. Fake tensors have no memory, so a fake trace stops at once:

# %%
def parity_of_address(x):
    return x + x.data_ptr() % 2


try:
    trace(parity_of_address, torch.ones(3))
    error = None
except RuntimeError as exc:
    error = str(exc)
print(error[:95])
assert error is not None  # a fake tensor has no memory to point at

# %% [markdown]
# With `tracing_mode="real"` the trace runs on the real tensor, so the address exists, and the
# result of `% 2` lands in the graph as a plain number: a fact about one allocation, baked in.
# (The cell computes it from the address it saw, so it asserts the same number whichever it is.)

# %%
x = torch.ones(3)
gm = trace(parity_of_address, x, mode="real")
baked = [arg for node in gm.graph.nodes if node.op == "call_function" for arg in node.args if isinstance(arg, int)]
print(gm.code)
assert baked == [x.data_ptr() % 2]

# %% [markdown]
# Under Dynamo the call stops too: with `fullgraph=True` it is an error, with the default the whole
# frame is skipped and runs as plain Python, with no graph at all. Memory addresses, `ctypes`
# pointers and anything else that reads raw storage belong outside traced code, or inside a custom
# operator (chapter 2.4), whose real kernel runs at run time and whose fake kernel only describes
# shapes.

# %%
message = fullgraph_error(parity_of_address, torch.ones(3))
t = tally_calls(parity_of_address, [(torch.ones(3),)])
print("fullgraph=True:", message, "| default:", t)
assert message is not None and t.graphs == 0 and t.compiled_calls == 0

# %% [markdown]
# ## 3.2 Specialization and constants
#
# A non-strict trace records tensor operations. Every other value it meets, a Python float or
# int argument, a size read with `.shape`, a string, becomes a *constant* in the graph, with
# no guard. Dynamo would guard on each of them and compile again when one changes (and, for sizes
# and numbers, make the value symbolic after one recompile: lesson 1.5; chapter 4 is about the cost
# of recompiles); a non-strict graph is simply wrong for other values.
#
# A Python float first:

# %%
def scale(x, factor):
    return x * factor


gm = trace(scale, torch.ones(2), 3.0)
print(gm.code)
print("called with factor=100.0:", gm(torch.ones(2), 100.0).tolist())
assert gm(torch.ones(2), 100.0).tolist() == [3.0, 3.0]

# %% [markdown]
# The graph multiplies by `3.0`, and its `factor` input is unused. Passed as a tensor, the factor
# is an input like any other:

# %%
gm = trace(scale, torch.ones(2), torch.tensor(3.0))
assert gm(torch.ones(2), torch.tensor(100.0)).tolist() == [100.0, 100.0]

# %% [markdown]
# The plot below replays one traced `softmax(x / t)` graph over a range of temperatures, traced once
# at `t = 1`, and shows how far each result is from eager Python. Passed as a float, the error
# grows as soon as the temperature moves; passed as a tensor, it stays at zero.

# %%
def sharpen(logits, t):
    return torch.softmax(logits / t, dim=-1)


logits = torch.randn(4, 10) * 2
temperatures = [0.25 * i for i in range(1, 17)]
as_float = trace(sharpen, logits, 1.0)
as_tensor = trace(sharpen, logits, torch.tensor(1.0))
error_float = [(as_float(logits, t) - sharpen(logits, t)).abs().max().item() for t in temperatures]
error_tensor = [(as_tensor(logits, torch.tensor(t)) - sharpen(logits, t)).abs().max().item() for t in temperatures]

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(temperatures, error_float, "o-", label="temperature as a Python float (broken)")
ax.plot(temperatures, error_tensor, "s-", label="temperature as a tensor (fixed)")
ax.axvline(1.0, color="grey", linestyle=":", label="traced at t = 1")
ax.set_xlabel("temperature of the call")
ax.set_ylabel("max |graph - eager|")
ax.legend(fontsize=8, loc="center right")
plt.show()
assert error_float[3] == 0.0 and max(error_float) > 0.1  # right only at the traced value (t = 1.0 is index 3)
assert max(error_tensor) < 1e-6

# %% [markdown]
# Shapes are the same story. With fake tensors, `x.shape[1]` is an ordinary int while tracing, so
# arithmetic on it is folded into the graph:

# %%
def average(x):
    return x.sum(dim=1) / x.shape[1]


gm = trace(average, torch.ones(2, 4))
print(gm.code)
print("on 8 columns of ones:", gm(torch.ones(2, 8)).tolist())
assert gm(torch.ones(2, 8)).tolist() == [2.0, 2.0]  # divided by 4: the traced width

# %% [markdown]
# `tracing_mode="symbolic"` keeps sizes as symbols, so that division follows the real width. It
# does not rescue control flow: an `if` on a size is still decided once, while tracing, and nothing
# checks it later.

# %%
gm_symbolic = trace(average, torch.ones(2, 4), mode="symbolic")
assert gm_symbolic(torch.ones(2, 8)).tolist() == [1.0, 1.0]


def wide_or_narrow(x):
    if x.shape[1] > 4:
        return x * 0
    return x


gm_symbolic = trace(wide_or_narrow, torch.ones(2, 3), mode="symbolic")
print("traced on width 3, called on width 8:", gm_symbolic(torch.ones(2, 8)).sum().item(),
      "| eager:", wide_or_narrow(torch.ones(2, 8)).sum().item())
assert ops(gm_symbolic) == [] and gm_symbolic(torch.ones(2, 8)).sum().item() == 16.0

# %% [markdown]
# The safest fix does not depend on the tracing mode: let a tensor operation read the size when the
# graph runs (`x.mean(dim=1)` here), and pass values that change as tensors.
#
# ### Exercise: specialize_temperature
#
# `sharpen` is traced once and the temperature reaches it as a Python float. Make the traced graph
# follow the temperature. Edit
# [exercises/03_nonstrict_tracing/specialize_temperature.py](../exercises/03_nonstrict_tracing/specialize_temperature.py):

# %%
# !{sys.executable} ../exercises/03_nonstrict_tracing/specialize_temperature.py 2>&1 | tail -n 3

# %%
check("specialize_temperature")

# %% [markdown]
# ### Exercise: specialize_window
#
# The chapter's last exercise points at nothing: `mean_pool`, traced once, averages the last tokens
# of each sequence, and its graph is right only for sequences as long as the first one. Find every
# value the trace fixed for good (there is more than one) and make the graph right for every
# length. Edit
# [exercises/03_nonstrict_tracing/specialize_window.py](../exercises/03_nonstrict_tracing/specialize_window.py):

# %%
# !{sys.executable} ../exercises/03_nonstrict_tracing/specialize_window.py 2>&1 | tail -n 3

# %%
check("specialize_window")

# %% [markdown]
# ## Summary
#
# | what the function does | Dynamo (`torch.compile`) | non-strict trace (`make_fx`, AOTAutograd, `nonstrict_trace`) |
# | --- | --- | --- |
# | reads a global tensor | graph input, guarded | constant; stale after a rebind |
# | prints | graph break, prints every call | prints once, while tracing |
# | mutates a Python list | replayed after the graph | runs on a copy, once; the graph never touches the list |
# | reads `data_ptr()` | error or skipped frame | error (fake) or a baked number (real) |
# | takes a Python number or reads a size | guarded, recompiles when it changes | constant, never checked |
#
# Inside a non-strictly traced function, write pure code: everything in through parameters
# (tensors for anything that varies), everything out through the return value. (A custom operator
# is neither column: its real kernel runs on every call; the compiler trusts its fake kernel and
# `mutates_args` instead, lesson 2.4.)

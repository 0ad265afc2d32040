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
# # 1 Dynamo core concepts
#
# `torch.compile` starts with Dynamo, the part that turns your Python function into graphs.
# Everything else in this course depends on how Dynamo behaves, so this lesson looks at it directly.
# By the end you will be able to:
#
# - say which parts of a function end up in a graph and which stay Python (1.1);
# - find a graph break, say why it happened, and predict how many graphs you get (1.2);
# - read the guards Dynamo installs and the guard that failed when it compiled again (1.3);
# - spot a recompile storm and what happens when the recompile limit is reached (1.4);
# - predict how many graphs `dynamic=None`, `True` and `False` produce for a stream of shapes (1.5).
#
# Every number in this lesson is measured by the cell that states it, on the torch you have installed,
# and the cell `assert`s it. The measuring tool is the course's counting backend
# (`autograder.probe`): it records each graph Dynamo hands to the backend and runs it as captured,
# without Inductor, so the cells run in seconds on a CPU.
#
# - `tally_calls(fn, calls, **options)` compiles `fn`, calls it once per argument tuple, and returns
#   a `Tally`: `graphs`, `graph_breaks`, `recompiles`, `compiled_calls` of `calls`, plus
#   `ops_per_graph`, `break_reasons` and `recompile_reasons`.
# - `tally_run(fn, driver, **options)` does the same, but lets `driver` make the calls.
# - `fullgraph_error(fn, *args)` compiles with `fullgraph=True` and returns the first line of the
#   error, or `None` when the whole function fits in one graph.
# - `guard_count(fn, *args)` returns how many guards Dynamo installs for one call.
#
# Each tally starts from a clean state, so the cells do not affect each other.
# Each section ends with exercises: files under `exercises/01_dynamo_core/` that you edit and then
# grade from here.

# %%
import sys

import torch

from autograder import check, hint
from autograder.lab import fullgraph_error, guard_count, tally_calls, tally_run

torch.manual_seed(0)
print(torch.__version__)

# %% [markdown]
# ## 1.1 Dynamo tracing
#
# When you call a compiled function, Dynamo catches the call before Python runs it. It then runs
# the function's bytecode itself, on stand-in values: each tensor is replaced by a fake tensor that
# has a shape, a dtype and a device but no data. Each torch operation on these tensors is written
# down as a node of an FX graph. Everything else is worked out while tracing and leaves no trace in
# the graph:
#
# - a loop over a Python list or a `range` is unrolled: the graph holds one copy of the body per
#   iteration;
# - an `if` on a Python value (a flag, a string, a shape) runs once, and only the branch taken is
#   recorded;
# - a call to another Python function is inlined: its operations join the same graph.
#
# Side effects that are not tensor operations, such as appending to a Python list, do not go into
# the graph either. Dynamo keeps a note of them and replays them in the new bytecode it writes,
# after the graph has run. That new bytecode is what actually runs on each call: call the compiled
# graph, replay the side effects, return.
#
# A backend is any callable that takes the graph (a `torch.fx.GraphModule`) and example inputs and
# returns something to run. The one below prints the graph's Python code, keeps the graph in a list
# so that we can count its nodes, and runs it unchanged.

# %%
captured = []


def print_graph(gm, example_inputs):
    captured.append(gm)
    print(gm.code)
    return gm.forward


def op_names(gm):
    """The name of each operation a graph calls, in order."""
    return [getattr(node.target, "__name__", str(node.target)) for node in gm.graph.nodes
            if node.op == "call_function"]


def activate(h, kind):
    if kind == "relu":          # a Python string: decided while tracing
        return torch.relu(h) + 0.5
    return torch.tanh(h)


def stack(x, weights, log, kind="relu"):
    for w in weights:           # a Python list of 3 tensors: unrolled 3 times
        x = activate(x @ w, kind)  # a nested call: inlined
    log.append(kind)            # a side effect on a Python list: replayed after the graph
    return x


weights = [torch.randn(4, 4) for _ in range(3)]
log = []
captured.clear()
out = torch.compile(stack, backend=print_graph)(torch.randn(2, 4), weights, log)
print("operations:", op_names(captured[0]))
print("log after one call:", log)
assert len(captured) == 1
assert op_names(captured[0]) == ["matmul", "relu", "add"] * 3  # no tanh, no append
assert log == ["relu"]

# %% [markdown]
# The graph has no loop, no `activate`, no string and no `append`: three copies of
# matmul, relu, add, and the list got its item after the graph ran. The probe counts the same:

# %%
log = []
t = tally_calls(stack, [(torch.randn(2, 4), weights, log)])
print(t, "| ops per graph:", t.ops_per_graph, "| log:", log)
assert t.graphs == 1 and t.graph_breaks == 0
assert t.ops_per_graph == [9]  # 3 iterations x (matmul, relu, add)
assert log == ["relu"]  # the append happened once, outside the graph

# %% [markdown]
# Only torch operations can be recorded. A value that leaves the tensor world, like the Python
# floats from `.tolist()`, is unknown while tracing (fake tensors have no data), so Dynamo cannot
# go on. With `fullgraph=True` it says so:

# %%
def mean_of(x):
    values = x.tolist()         # Python floats: their values exist only at run time
    return sum(values) / len(values)


message = fullgraph_error(mean_of, torch.randn(5))
print(message)
assert message == "Tensor.tolist() with non-integer tensor"

# %% [markdown]
# With the default `fullgraph=False`, the `.tolist()` call is a graph break instead (section 1.2):
# Python runs it, and Dynamo goes on tracing after it. Neither side of the break has a tensor
# operation, so no graph is compiled at all and the call runs no compiled code. Written with a
# tensor operation, the same computation is one graph with one op.

# %%
t = tally_calls(mean_of, [(torch.randn(5),)])
print("with .tolist():", t)
assert t.graphs == 0 and t.graph_breaks == 1 and t.compiled_calls == 0

t = tally_calls(lambda x: x.mean(), [(torch.randn(5),)], fullgraph=True)
print("with .mean():  ", t, t.ops_per_graph)
assert t.graphs == 1 and t.ops_per_graph == [1] and t.compiled_calls == 1

# %% [markdown]
# ### Exercise: trace_tolist
#
# Rewrite `weighted_row_means` with tensor operations so that it compiles into one graph with
# `fullgraph=True`. Edit
# [exercises/01_dynamo_core/trace_tolist.py](../exercises/01_dynamo_core/trace_tolist.py), save it,
# and run the check below. `hint("trace_tolist")` shows one more hint each time you call it.
#
# This is what the file does now (the last lines of its output):

# %%
# !{sys.executable} ../exercises/01_dynamo_core/trace_tolist.py 2>&1 | tail -n 20

# %%
check("trace_tolist")

# %% [markdown]
# ## 1.2 Graph breaks
#
# When Dynamo reaches something it cannot trace, what happens depends on `fullgraph`:
#
# - `fullgraph=False` (the default): Dynamo compiles the graph it has so far, lets Python run the
#   part it could not trace, and continues tracing from the next instruction in a *resume
#   function*, a new function that Dynamo generates and compiles like any other. This is a
#   *graph break*: it splits the function into a graph before it and a graph after it (a side
#   with no tensor operations gives no graph, as with `mean_of` in 1.1).
# - `fullgraph=True`: Dynamo raises `torch._dynamo.exc.Unsupported` at the first break.
#
# `print` is a common cause:

# %%
def report(x):
    y = torch.sin(x) * 2
    print("halfway there")      # Dynamo cannot put a print into a graph
    return torch.cos(y) + 1


t = tally_calls(report, [(torch.randn(8),)])
print(t, "| ops per graph:", t.ops_per_graph)
print("reason:", t.break_reasons)
assert t.graphs == 2 and t.graph_breaks == 1
assert t.ops_per_graph == [2, 2]  # (sin, mul) before the print, (cos, add) after it
assert t.break_reasons == ["Failed to trace builtin operator"]

# %% [markdown]
# The same measurement as a picture: one box per graph with its ops, and under the arrow the
# reason the first graph ended.

# %%
from autograder.lab import graph_diagram

figure = graph_diagram(t, title="report(x): the print splits one function into two graphs")
assert len(t.graph_ops) == 2 and len(figure.axes[0].patches) == 2

# %% [markdown]
# Dynamo's own counters name the resume function that holds the second graph: it is called after
# the function and the line where tracing resumed.

# %%
from torch._dynamo.utils import counters

resumes = list(counters["resumes"])
print(resumes)
assert len(resumes) == 1 and resumes[0].startswith("torch_dynamo_resume_in_report_at_")

# %% [markdown]
# With `fullgraph=True`, the same function does not compile:

# %%
message = fullgraph_error(report, torch.randn(8))
print(message)
assert message == "Failed to trace builtin operator"

# %% [markdown]
# A break also happens when Python control flow depends on the *data* in a tensor. Dynamo cannot
# know while tracing whether `x.sum() > 0` is true. So the first graph computes the condition,
# Python takes the branch, and each branch continues in a resume function that is compiled the
# first time that branch is taken. Two calls that take different branches give three graphs.

# %%
def gate(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


t = tally_calls(gate, [(torch.ones(8),), (-torch.ones(8),)])
print(t, "| ops per graph:", t.ops_per_graph, "| reason:", t.break_reasons)
assert t.graphs == 3 and t.graph_breaks == 1
assert t.ops_per_graph == [2, 1, 1]  # (sum, gt), then (mul) for one branch and (sub) for the other

message = fullgraph_error(gate, torch.randn(8))
print("fullgraph=True:", message)
assert message == "Data-dependent branching"

# %% [markdown]
# Written as a tensor operation, the choice stays in the graph. `torch.where` computes both sides
# and picks per element, so one graph serves both calls.

# %%
def gate_where(x):
    return torch.where(x.sum() > 0, x * 2, x - 1)


t = tally_calls(gate_where, [(torch.ones(8),), (-torch.ones(8),)], fullgraph=True)
print(t)
assert t.graphs == 1 and t.graph_breaks == 0 and t.compiled_calls == 2

# %% [markdown]
# One case behaves differently under the two settings on torch 2.13: `.item()`. With
# `fullgraph=False` it is a graph break (Dynamo also logs a warning about
# `capture_scalar_outputs`). With `fullgraph=True` Dynamo captures the scalar into the graph
# instead, and the function compiles as one graph.

# %%
def scale_by_mean(x):
    return x * x.mean().item()


t = tally_calls(scale_by_mean, [(torch.randn(8),)])
print("fullgraph=False:", t, t.break_reasons)
assert t.graphs == 2 and t.graph_breaks == 1

message = fullgraph_error(scale_by_mean, torch.randn(8))
t = tally_calls(scale_by_mean, [(torch.randn(8),)], fullgraph=True)
print("fullgraph=True: ", t, "| error:", message)
assert message is None and t.graphs == 1 and t.graph_breaks == 0

# %% [markdown]
# Some library functions are on a list of functions Dynamo never traces into. Calling one of them
# is a graph break too, and with `fullgraph=True` an error that says the function is "marked as
# skipped". The usual fix for code that is not tensor work (saving files, logging) is to keep it
# out of the compiled function: return what it needs, and let the caller do it.
#
# ### Exercise: breaks_checkpoint
#
# Make `encode` compile into one graph with `fullgraph=True` while its hidden activations are
# still saved. Edit
# [exercises/01_dynamo_core/breaks_checkpoint.py](../exercises/01_dynamo_core/breaks_checkpoint.py),
# save it, and run the check. `hint("breaks_checkpoint")` gives hints one at a time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/breaks_checkpoint.py 2>&1 | tail -n 20

# %%
check("breaks_checkpoint")

# %% [markdown]
# ## 1.3 Guards
#
# A compiled graph is only valid for inputs like the ones it was traced with. So next to each graph
# Dynamo stores *guards*: checks that run before every call and decide whether the cached graph can
# be used. What gets guarded:
#
# - each tensor input: its type, dtype, device, shape, strides and `requires_grad`
#   (one `TENSOR_MATCH` guard per tensor), never its values;
# - Python values that the trace depended on, such as a float argument: its exact value;
# - global state that changes what operations mean: grad mode, the default device, deterministic
#   algorithms, and a few more.
#
# `guard_count` counts the guards for one call. The guard list itself can be seen by passing
# `guard_filter_fn` in `options`: Dynamo calls it with every guard, and it returns which to keep
# (here, all of them).

# %%
def bump(x):
    return x * 2 + 1


n_guards = guard_count(bump, torch.randn(3))
print("guards for bump(x):", n_guards)
assert n_guards == 8

seen_guards = []


def keep_all(entries):
    seen_guards.extend(entries)
    return [True] * len(entries)


torch._dynamo.reset()
torch.compile(bump, backend="eager", options={"guard_filter_fn": keep_all})(torch.randn(3))
for entry in seen_guards:
    print(f"{entry.guard_type:<28} {entry.name}")
kinds = [entry.guard_type for entry in seen_guards]
global_state = [kind for kind in kinds if kind not in ("TENSOR_MATCH", "SHAPE_ENV")]
assert len(kinds) == n_guards
assert kinds.count("TENSOR_MATCH") == 1 and kinds.count("SHAPE_ENV") == 1 and len(global_state) == 6

# %% [markdown]
# One tensor input gives one `TENSOR_MATCH`, on `x`. Six guards check global state (grad mode,
# default device, deterministic algorithms, ...), and `SHAPE_ENV` checks conditions on symbolic
# sizes, which section 1.5 introduces (there are none here). A function with two tensors and a
# float gets one more `TENSOR_MATCH` and a `CONSTANT_MATCH` on the float's value:

# %%
def blend(a, b, alpha):
    return a * alpha + b * (1 - alpha)


n_guards = guard_count(blend, torch.randn(3), torch.randn(3), 0.25)
print("guards for blend(a, b, alpha):", n_guards)
assert n_guards == 10

seen_guards.clear()
torch._dynamo.reset()
torch.compile(blend, backend="eager", options={"guard_filter_fn": keep_all})(torch.randn(3), torch.randn(3), 0.25)
argument_guards = [(entry.guard_type, entry.name) for entry in seen_guards if entry.name]
print(argument_guards)
assert len(seen_guards) == n_guards
assert argument_guards == [("TENSOR_MATCH", "a"), ("TENSOR_MATCH", "b"), ("CONSTANT_MATCH", "alpha")]

# %% [markdown]
# When a call fails a guard, Dynamo compiles again (section 1.4) and says which guard failed. The
# probe collects those lines in `recompile_reasons`, in the form `frame/compile: guard`. Below,
# `blend` is called once as `blend(a, b, 0.25)` on 3-element float tensors, then once more with one
# thing changed.

# %%
def second_call(make_args):
    """Compile blend, call it once with the reference arguments, then once with make_args()."""
    def driver(compiled):
        compiled(torch.randn(3), torch.randn(3), 0.25)
        compiled(*make_args())
    return tally_run(blend, driver)


same = second_call(lambda: (torch.randn(3), torch.randn(3), 0.25))
print("new tensor values: ", same, same.recompile_reasons)
assert same.recompiles == 0 and same.graphs == 1

new_alpha = second_call(lambda: (torch.randn(3), torch.randn(3), 0.75))
print("alpha 0.75:        ", new_alpha, new_alpha.recompile_reasons)
assert new_alpha.recompiles == 1 and new_alpha.recompile_reasons == ["0/0: alpha == 0.25"]

needs_grad = second_call(lambda: (torch.randn(3, requires_grad=True), torch.randn(3), 0.25))
print("a.requires_grad:   ", needs_grad, needs_grad.recompile_reasons)
assert needs_grad.recompiles == 1 and "requires_grad mismatch" in needs_grad.recompile_reasons[0]

# %% [markdown]
# New values in the same tensors pass every guard. A new `alpha` fails the value guard
# `alpha == 0.25`, and a tensor that now requires grad fails its `TENSOR_MATCH`. The messages for
# a new dtype, shape or stride, or for a change of grad mode, follow the same pattern; the
# exercise asks you to predict them.
#
# ### Exercise: guards_predict
#
# For six different second calls of `scale(x, factor)`, predict whether Dynamo recompiles and which
# kind of guard fails. Fill in the two tables in
# [exercises/01_dynamo_core/guards_predict.py](../exercises/01_dynamo_core/guards_predict.py).
# `hint("guards_predict")` gives hints one at a time.
#
# Write your predictions before you run the next cell: it runs the file, which prints what Dynamo
# does for each second call.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/guards_predict.py 2>&1 | tail -n 20

# %%
check("guards_predict")

# %% [markdown]
# ## 1.4 Recompilations
#
# Each compiled variant of a function is a *cache entry* attached to the function's code object:
# a graph (plus the bytecode around it) and its guards. On a call, Dynamo tries the entries in
# turn; if none of them passes its guards, it traces the function again and adds a new entry. That
# is a recompilation. The number of entries per function is capped by
# `torch._dynamo.config.recompile_limit`:

# %%
limit = torch._dynamo.config.recompile_limit
print("recompile_limit:", limit)
assert limit == 8

# %% [markdown]
# A side effect on a global object is the classic way to reach that limit. Dynamo guards on what
# the trace read, here the length of the global list `seen`. Each call appends to it, so the next
# call fails that guard and compiles again: a *recompile storm*. After 8 entries Dynamo stops
# compiling this function, logs a warning, and runs every later call in plain Python, with no error.
# `compiled_calls` shows how many calls still ran a graph.

# %%
seen = []


def track(x):
    seen.append(x.shape[0])     # mutates a global list
    return x * 2


t = tally_calls(track, [(torch.randn(5),) for _ in range(12)])
print(t)
print("first failing guards:", t.recompile_reasons[:2])
assert t.graphs == 8 and t.recompiles == 7
assert t.compiled_calls == 8 and t.calls == 12  # calls 9 to 12 ran in plain Python
assert t.recompile_reasons[:2] == ["0/0: not G['seen']", "0/1: len(G['seen']) == 1"]
assert len(seen) == 12  # the append still ran on every call

# %% [markdown]
# The first entry was compiled when `seen` was empty (`not G['seen']`), the second when it had one
# item, and so on. Once there are several entries, a recompile message lists the failing guard of
# every entry, newest first, so `recompile_reasons` grows quickly.
#
# The limit can be lowered or raised. Raising it only hides a storm; lowering it shows the fallback
# sooner:

# %%
seen.clear()
with torch._dynamo.config.patch(recompile_limit=3):
    t = tally_calls(track, [(torch.randn(5),) for _ in range(12)])
print(t)
assert t.graphs == 3 and t.compiled_calls == 3

# %% [markdown]
# With `fullgraph=True`, reaching the limit is an error instead of a silent fallback: the ninth
# call raises.

# %%
seen.clear()
calls_started = []


def twelve_calls(compiled):
    for i in range(12):
        calls_started.append(i)
        compiled(torch.randn(5))


try:
    tally_run(track, twelve_calls, fullgraph=True)
    error = None
except Exception as exc:
    error = exc
print(f"{type(error).__name__}: {str(error).splitlines()[0]} (on call {len(calls_started)})")
assert type(error).__name__ == "FailOnRecompileLimitHit" and len(calls_started) == 9

# %% [markdown]
# The cure is to keep the compiled function free of side effects on objects that outlive the call:
# return the extra value and let the caller keep the log.
#
# ### Exercise: recompile_global_log
#
# Stop `normalize` from recompiling on every call: after your change, one graph must serve every
# call. Edit
# [exercises/01_dynamo_core/recompile_global_log.py](../exercises/01_dynamo_core/recompile_global_log.py)
# and run the check. `hint("recompile_global_log")` gives hints one at a time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/recompile_global_log.py 2>&1 | tail -n 20

# %%
check("recompile_global_log")

# %% [markdown]
# ## 1.5 Dynamic shapes
#
# A size guard fails whenever a tensor arrives with a new shape. Whether that leads to one graph
# per shape is set by `dynamic=`:
#
# - `dynamic=False`: every size is a constant in the graph, so every new size is a new graph.
# - `dynamic=None` (the default): the first graph uses the sizes it saw. When a size guard fails,
#   Dynamo recompiles with that dimension as a symbol (a `SymInt`), and the new graph serves every
#   later size.
# - `dynamic=True`: sizes are symbols from the first compile.
#
# Here is a row-wise RMS norm called on batches of 2 to 7 rows, under each setting:

# %%
def rms_norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


batches = [(torch.randn(rows, 8),) for rows in range(2, 8)]
graphs = {}
for dynamic in (None, True, False):
    t = tally_calls(rms_norm, batches, dynamic=dynamic)
    graphs[dynamic] = t.graphs
    print(f"dynamic={dynamic!s:<5}: {t}")
assert graphs == {None: 2, True: 1, False: 6}

# %% [markdown]
# With the default, the second call fails a size guard and Dynamo compiles a graph whose first
# input is the symbolic size. Printing the graphs shows the difference:

# %%
torch._dynamo.reset()
captured.clear()
compiled = torch.compile(rms_norm, backend=print_graph)
for rows in (2, 3, 4):  # the call with 4 rows reuses the second graph and prints nothing
    compiled(torch.randn(rows, 8))
assert len(captured) == 2 and "torch.SymInt" in captured[1].code

t = tally_calls(rms_norm, [(torch.randn(rows, 8),) for rows in (2, 3, 4)])
print(t, t.recompile_reasons)
assert t.graphs == 2
assert t.recompile_reasons == ["0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3"]

# %% [markdown]
# Sizes 0 and 1 are special: Dynamo always gives them their own graph, even with `dynamic=True`,
# because so much code behaves differently for them (broadcasting, empty tensors). Batches of 0 and
# 1 rows followed by bigger batches give three graphs: one for 0, one for 1, one for the rest.

# %%
t = tally_calls(rms_norm, [(torch.randn(rows, 8),) for rows in (0, 1, 2, 3, 4)], dynamic=True)
print(t)
for reason in t.recompile_reasons:
    print("   ", reason)
assert t.graphs == 3 and t.recompiles == 2
assert t.recompile_reasons[0] == "0/0: tensor 'x' size mismatch at index 0. expected 0, actual 1"

# %% [markdown]
# Integer arguments follow the same rule as sizes under `dynamic=None`: a new value recompiles
# once, with the integer as a symbol. That only works while Python does not need the integer's
# value. A `range(n)` loop is unrolled during tracing (1.1), so it needs `n` itself, and every new
# `n` is a new graph.

# %%
def times(x, n):
    return x * n


def double_n_times(x, n):
    for _ in range(n):
        x = x * 2
    return x


ns = [2, 3, 4, 5]
as_symbol = tally_calls(times, [(torch.randn(3), n) for n in ns])
as_loop = tally_calls(double_n_times, [(torch.randn(3), n) for n in ns])
print("x * n:          ", as_symbol)
print("loop of n steps:", as_loop, "| ops per graph:", as_loop.ops_per_graph)
assert as_symbol.graphs == 2
assert as_loop.graphs == 4 and as_loop.ops_per_graph == [2, 3, 4, 5]

# %% [markdown]
# ### Exercise: dynamic_batches
#
# `score` is called on batches of 2 to 13 rows and compiled with `dynamic=False`. Choose the
# `dynamic` setting that serves all of them with at most one recompile. Edit
# [exercises/01_dynamo_core/dynamic_batches.py](../exercises/01_dynamo_core/dynamic_batches.py) and
# run the check. `hint("dynamic_batches")` gives hints one at a time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/dynamic_batches.py 2>&1 | tail -n 20

# %%
check("dynamic_batches")

# %% [markdown]
# ### Exercise: dynamic_predict
#
# Predict the number of graphs for six experiments that call `x + 1` on square inputs under
# different `dynamic=` settings, and fill in `GRAPHS` in
# [exercises/01_dynamo_core/dynamic_predict.py](../exercises/01_dynamo_core/dynamic_predict.py).
# `hint("dynamic_predict")` gives hints one at a time.
#
# Write your predictions before you run the next cell: it runs the file, which prints every count.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/dynamic_predict.py 2>&1 | tail -n 20

# %%
check("dynamic_predict")

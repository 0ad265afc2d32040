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
# - read a whole graph-break message down to the line that broke the graph (1.2.1), and let
#   `torch._dynamo.explain` list every break of a function (1.2.2);
# - read the guards Dynamo installs, in its own guard log too, and the guard that failed when it
#   compiled again (1.3, 1.3.1), and name what is *not* guarded by default (1.3.2);
# - spot a recompile storm and say which calls still run compiled code once the recompile limit
#   is reached (1.4);
# - predict how many graphs `dynamic=None`, `True` and `False` produce for a stream of shapes (1.5).
#
# Every number in this lesson is measured by the cell that states it, on the torch you have installed,
# and the cell `assert`s it. The measuring tool is the course's counting backend
# (`autograder.lab`): it records each graph Dynamo hands to the backend and runs it as captured,
# without Inductor, so the cells run in seconds on a CPU. Tracing, graph breaks and guards are
# Dynamo's, whichever backend runs the graphs; the one difference, that Inductor may add guards of
# its own while it compiles, is shown at the end of 1.5. Next to each count, the lesson shows the
# tool of torch's own that tells you the same on a program of yours (`TORCH_LOGS`,
# `torch._dynamo.explain`).
#
# Asserts check what a message *means*, never its wording: a graph break by its id in Dynamo's
# graph-break registry (`GB0059`, printed with its text), a guard by its kind. A fact that a torch
# release may change (a default, a name) is a *drift alarm*: `drift("...")` checks it and, when it
# no longer holds, says `torch changed: ...` and which sections to revisit.
#
# - `tally_calls(fn, calls, **options)` compiles `fn`, calls it once per argument tuple, and returns
#   a `Tally`: `graphs`, `graph_breaks`, `recompiles`, `compiled_calls` of `calls`, plus
#   `ops_per_graph`, `break_reasons` and `recompile_reasons`.
# - `tally_run(fn, driver, **options)` does the same, but lets `driver` make the calls.
# - `fullgraph_error(fn, *args)` compiles with `fullgraph=True` and returns the first line of the
#   error, or `None` when the whole function fits in one graph; `graph_break(fn, *args)` returns the
#   whole break instead (1.2.1).
# - `guard_count(fn, *args)` returns how many guards Dynamo installs for one call.
#
# Each tally starts from a clean state, so the cells do not affect each other.
# Each section ends with exercises: files under `exercises/01_dynamo_core/` that you edit and then
# grade from here.

# %%
import re
import sys

import torch

from autograder import check, hint
from autograder.lab import (
    call_timeline, drift, failed_guard, fullgraph_error, gb_id, graph_break, guard_count, guard_log, logged_warnings, tally_calls,
    tally_run,
)

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
#   recorded, and *guarded*: a later call that would take the other branch compiles again (1.3);
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
# go on. With `fullgraph=True` it says so. (The cell prints the break's first line and its id in
# Dynamo's graph-break registry; the id is what the cell asserts, because it stays when the wording
# changes.)

# %%
def mean_of(x):
    values = x.tolist()         # Python floats: their values exist only at run time
    return sum(values) / len(values)


brk = graph_break(mean_of, torch.randn(5))
print(brk.gb_id, brk)
assert brk.gb_id == "GB0109"  # "Tensor.tolist() with non-integer tensor"

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
# Make `weighted_row_means` compile into one graph with `fullgraph=True`, with the same results.
# Edit
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
assert t.break_ids == ["GB0059"]  # "Failed to trace builtin operator"

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
assert len(resumes) == 1
drift("a resume function is named after the function and the line it resumes at",
      bool(re.fullmatch(r"torch_dynamo_resume_in_report_at_\d+", resumes[0])))

# %% [markdown]
# With `fullgraph=True`, the same function does not compile:

# %%
brk = graph_break(report, torch.randn(8))
print(brk.gb_id, brk)
assert brk.gb_id == "GB0059"  # "Failed to trace builtin operator"

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

brk = graph_break(gate, torch.randn(8))
print("fullgraph=True:", brk.gb_id, brk)
assert brk.gb_id == "GB0170"  # "Data-dependent branching"

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
# `torch._dynamo.config.capture_scalar_outputs`, which is off by default). With `fullgraph=True`
# Dynamo turns that capture on by itself: the scalar becomes a value of the graph, and the function
# compiles as one graph.

# %%
def scale_by_mean(x):
    return x * x.mean().item()


with logged_warnings() as warned:  # keep Dynamo's notice for the print below
    t = tally_calls(scale_by_mean, [(torch.randn(8),)])
print("fullgraph=False:", t, t.break_reasons)
print("Dynamo's warning:", " ".join(warned[0].split()[:12]) if warned else None, "...")
assert t.graphs == 2 and t.graph_breaks == 1 and warned

message = fullgraph_error(scale_by_mean, torch.randn(8))
t = tally_calls(scale_by_mean, [(torch.randn(8),)], fullgraph=True)
print("fullgraph=True: ", t, "| error:", message)
drift("capture_scalar_outputs is off by default")
drift("fullgraph=True captures .item() into the graph", message is None and t.graphs == 1 and t.graph_breaks == 0)

# %% [markdown]
# The captured scalar is a symbol whose value nobody knows while tracing, so the next thing that
# needs its value (an `if` on it, say) is the next problem: section 2.2.2.1 takes it from there.
# And `torch._dynamo.error_on_graph_break(True)`, which otherwise makes breaks errors the way
# `fullgraph=True` does, does *not* turn the capture on (2.5.3.5).
#
# Some library functions are on a list of functions Dynamo never traces into. Calling one of them
# is a graph break too, and with `fullgraph=True` an error that says the function is "marked as
# skipped" (1.2.1 shows what else that message says). The usual fix for code that is not tensor
# work (saving files, logging) is to keep it out of the compiled function: return what it needs,
# and let the caller do it.
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
# ### 1.2.1 Reading a graph-break message
#
# So far the cells printed only the first line of a break. The whole message says much more, and
# on a program you did not write it is the fastest way to the cause. Here the break sits two calls
# below the compiled function: `model` calls `layer`, which calls a small `summarize` helper that
# reads the values out with `.tolist()`. `graph_break(fn, *args)` compiles with `fullgraph=True`,
# catches the error, and keeps the whole message and its parts:

# %%
def summarize(h):
    return {"peak": max(h.flatten().tolist())}


def layer(x, w):
    h = torch.relu(x @ w)
    return h, summarize(h)


def model(x, w):
    h, stats = layer(x, w)
    return h.sum() / stats["peak"]


brk = graph_break(model, torch.randn(4, 3), torch.randn(3, 3))
print(brk.text)

# %% [markdown]
# Read it from the top:
#
# 1. the first line is the *type* of the break (`brk.gb_type`): what kind of code Dynamo met;
# 2. `Explanation:` says what Dynamo could not do;
# 3. each `Hint:` is a suggestion. Some are specific, some are generic (read them, do not follow
#    them blindly: the hint here, to make the tensor an integer one, would change what the code
#    computes);
# 4. `Developer debug context:` is for Dynamo's developers;
# 5. the link names the break's page on the graph-break site: `gb0109` is the break's id in
#    Dynamo's *graph-break registry*, which stays the same when the wording changes (this course's
#    cells assert the id for that reason);
# 6. `from user code:` is the stack of *your* functions at the break, outermost first. The last
#    frame is the line that broke the graph. The first frame is where you would look first, and it
#    is not the culprit.

# %%
for frame in brk.user_stack:
    print("   ", frame)
print("culprit:", brk.culprit)
assert brk.gb_id == "GB0109" and brk.gb_id.lower() in brk.link  # the id and the link agree
assert [frame.function for frame in brk.user_stack] == ["model", "layer", "summarize"]
assert brk.culprit.function == "summarize" and "tolist" in brk.culprit.code
drift("a graph-break message has an explanation, hints, a registry link and the user stack",
      (bool(brk.explanation), bool(brk.hints), bool(brk.link), len(brk.user_stack)))

# %% [markdown]
# The same message appears for each break under the default `fullgraph=False` when you run with
# `TORCH_LOGS=graph_breaks` (chapter 7). Under `fullgraph=True` it is the text of the exception.
#
# The hints are worth reading when a *library* function is the cause. PyTorch keeps a list of
# functions that Dynamo does not trace into, and calling one breaks the graph ("marked as
# skipped"). One of them is `torch.utils.data.default_collate`, which stacks a list of samples into
# a batch. The message names a way out, `torch._dynamo.dont_skip_tracing`: applied to a function,
# it makes Dynamo trace everything that function calls, skip list or not.

# %%
from torch.utils.data import default_collate


def batch_mean(samples):
    return default_collate(samples).mean(dim=0)


samples = [torch.randn(3) for _ in range(4)]
brk = graph_break(batch_mean, samples)
print(brk.gb_id, brk)
for hint_line in brk.hints:
    print("  Hint:", hint_line)
traced = tally_calls(torch._dynamo.dont_skip_tracing(batch_mean), [(samples,)], fullgraph=True)
print("with dont_skip_tracing:", traced)
assert brk.gb_id == "GB0007"  # "Attempted to call function marked as skipped"
drift("the skipped-function message suggests dont_skip_tracing", any("dont_skip_tracing" in h for h in brk.hints))
assert traced.graphs == 1 and traced.graph_breaks == 0
assert torch.allclose(torch.compile(torch._dynamo.dont_skip_tracing(batch_mean), backend="eager")(samples),
                      batch_mean(samples))

# %% [markdown]
# Tracing a skipped function is not always possible: the hint itself warns that more breaks may
# follow, and for `torch.save` (the function `breaks_checkpoint` calls) they do, because it writes
# a file. Keep I/O out of compiled code; use `dont_skip_tracing` for tensor work that happens to
# live in a skipped module.

# %% [markdown]
# ### Exercise: scorer_one_graph
#
# `score` raises under `fullgraph=True`. Read the whole message, the user stack to its last
# frame included, and fix the code where the break really is, without changing a score.
# Edit [exercises/01_dynamo_core/scorer_one_graph.py](../exercises/01_dynamo_core/scorer_one_graph.py):

# %%
# !{sys.executable} ../exercises/01_dynamo_core/scorer_one_graph.py 2>&1 | grep -A 12 "from user code"

# %%
check("scorer_one_graph")

# %% [markdown]
# ### 1.2.2 torch._dynamo.explain
#
# `torch._dynamo.explain(fn)(*args)` runs `fn` once under Dynamo and returns a summary of every
# graph and every break, without `fullgraph=True` stopping at the first: `graph_count`,
# `graph_break_count`, `break_reasons` (each with the whole message and the user stack),
# `ops_per_graph` and the guards (`out_guards`). It is the torch-native way to get the numbers the
# course's probe gave above:

# %%
explanation = torch._dynamo.explain(report)(torch.randn(8))
probed = tally_calls(report, [(torch.randn(8),)])
first_reason = explanation.break_reasons[0]
print(f"explain: {explanation.graph_count} graphs, {explanation.graph_break_count} break, "
      f"ops per graph {[len(ops) for ops in explanation.ops_per_graph]}")
print("break:", first_reason.reason.splitlines()[0], "| at:", first_reason.user_stack[-1].name, "line", first_reason.user_stack[-1].lineno)
print("probe:  ", probed)
assert explanation.graph_count == probed.graphs == 2 and explanation.graph_break_count == probed.graph_breaks == 1
assert [len(ops) for ops in explanation.ops_per_graph] == probed.ops_per_graph
assert gb_id(first_reason.reason) == "GB0059" and first_reason.user_stack[-1].name == "report"

# %% [markdown]
# Two things to know. `explain` counts breaks its own way: a break inside nested calls counts more
# than once, and a data-dependent `if` is reported with an internal reason instead of its break
# type. So compare `explain` runs with each other, not with other counters:

# %%
def level_0(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x + 2


def level_1(x):
    return level_0(x * 2) - 1


def level_2(x):
    return level_1(x * 3) - 2


nested = torch._dynamo.explain(level_2)(torch.ones(3))
nested_probe = tally_calls(level_2, [(torch.ones(3),)])
print(f"explain: {nested.graph_count} graphs, {nested.graph_break_count} breaks | probe: {nested_probe}")
assert nested.graph_count == nested_probe.graphs
drift("explain counts a nested break more often than the break counter", nested.graph_break_count > nested_probe.graph_breaks)

# %% [markdown]
# And `explain` calls the function (its side effects happen, here the print of `report`) and
# compiles it with a backend of its own; in a test, `tally_calls`-style counting or
# `TORCH_LOGS=graph_breaks` tell you more about one run.

# %% [markdown]
# ### Exercise: summary_breaks
#
# `summarise` compiles as several graphs. `torch._dynamo.explain` lists every break at once:
# run the file to read its report, then make `summarise` one graph with the same numbers.
# Edit [exercises/01_dynamo_core/summary_breaks.py](../exercises/01_dynamo_core/summary_breaks.py):

# %%
# !{sys.executable} ../exercises/01_dynamo_core/summary_breaks.py 2>&1 | tail -n 4

# %%
check("summary_breaks")

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
# Almost everything the trace assumed is guarded, not quite everything: 1.3.2 shows what the
# defaults leave out.
#
# `guard_count` counts the guards for one call. The guard list itself can be seen by passing
# `guard_filter_fn` in `options`: Dynamo calls it with every guard, and it returns which to keep
# (here, all of them).

# %%
def bump(x):
    return x * 2 + 1


n_guards = guard_count(bump, torch.randn(3))
print("guards for bump(x):", n_guards)

seen_guards = []


def keep_all(entries):
    seen_guards.extend(entries)
    return [True] * len(entries)


torch._dynamo.reset()
torch.compile(bump, backend="eager", options={"guard_filter_fn": keep_all})(torch.randn(3))
for entry in seen_guards:
    print(f"{entry.guard_type:<28} {entry.name}")
kinds = [entry.guard_type for entry in seen_guards]
on_inputs = [(entry.guard_type, entry.name) for entry in seen_guards if entry.name]
assert len(kinds) == n_guards
assert on_inputs == [("TENSOR_MATCH", "x")]  # one tensor input, one tensor guard; nothing on its values
assert {"GRAD_MODE", "DEFAULT_DEVICE", "DETERMINISTIC_ALGORITHMS"} <= set(kinds) and kinds.count("SHAPE_ENV") == 1

# %% [markdown]
# One tensor input gives one `TENSOR_MATCH`, on `x`. The others check global state (grad mode,
# default device, deterministic algorithms, ...), and `SHAPE_ENV` checks conditions on symbolic
# sizes, which section 1.5 introduces (there are none here). A function with two tensors and a
# float gets one more `TENSOR_MATCH` and a `CONSTANT_MATCH` on the float's value, and the same
# global-state guards:

# %%
def blend(a, b, alpha):
    return a * alpha + b * (1 - alpha)


n_guards = guard_count(blend, torch.randn(3), torch.randn(3), 0.25)
print("guards for blend(a, b, alpha):", n_guards)
assert n_guards == guard_count(bump, torch.randn(3)) + 2  # one more tensor, one float

seen_guards.clear()
torch._dynamo.reset()
torch.compile(blend, backend="eager", options={"guard_filter_fn": keep_all})(torch.randn(3), torch.randn(3), 0.25)
argument_guards = [(entry.guard_type, entry.name) for entry in seen_guards if entry.name]
print(argument_guards)
assert len(seen_guards) == n_guards
assert argument_guards == [("TENSOR_MATCH", "a"), ("TENSOR_MATCH", "b"), ("CONSTANT_MATCH", "alpha")]

# %% [markdown]
# When a call fails a guard, Dynamo compiles again (section 1.4) and says which guard failed. The
# probe collects those lines in `recompile_reasons`, in the form `frame/compile: guard`, and
# `failed_guard(line)` reads one: the kind of guard and what it guards. Below,
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
value_guard = failed_guard(new_alpha.recompile_reasons[0])
assert new_alpha.recompiles == 1 and len(new_alpha.recompile_reasons) == 1
assert (value_guard.kind, value_guard.subject) == ("value", "alpha") and "0.25" in value_guard.text

needs_grad = second_call(lambda: (torch.randn(3, requires_grad=True), torch.randn(3), 0.25))
print("a.requires_grad:   ", needs_grad, needs_grad.recompile_reasons)
tensor_guard = failed_guard(needs_grad.recompile_reasons[0])
assert needs_grad.recompiles == 1 and (tensor_guard.kind, tensor_guard.subject) == ("requires_grad", "a")

# %% [markdown]
# New values in the same tensors pass every guard. A new `alpha` fails the value guard
# `alpha == 0.25`, and a tensor that now requires grad fails its `TENSOR_MATCH`. The messages for
# a new dtype, shape or stride, or for a change of grad mode, follow the same pattern; the
# exercise asks you to predict them.
#
# ### Exercise: guards_predict
#
# For a compiled `scale(x, factor)` called once and then a second time in another way, write the
# rule that says which kind of guard the second call fails (or none): the function
# `failing_guard(first, second)` in
# [exercises/01_dynamo_core/guards_predict.py](../exercises/01_dynamo_core/guards_predict.py). The
# grader asks it about pairs of calls of its own, so write the rule, not a table of this lesson's
# cases. `hint("guards_predict")` gives hints one at a time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/guards_predict.py 2>&1 | tail -n 20

# %%
check("guards_predict")

# %% [markdown]
# ### 1.3.1 Reading the guard log
#
# On your own program you do not write a guard filter: you ask Dynamo to log its guards, with
# `TORCH_LOGS=guards` in a terminal or `torch._logging.set_logs(guards=True)` in a notebook. The log
# is a tree, printed after each compile. `guard_log(fn, *args)` compiles, calls once, and keeps that
# tree (and what each line means). The tree of `blend`, its long lines cut:

# %%
tree = guard_log(blend, torch.randn(3), torch.randn(3), 0.25)
for line in tree.text.splitlines():
    print(line if len(line) < 120 else line[:117] + "...")

# %% [markdown]
# How to read it:
#
# - the first lines, straight under the root, are the *ambient* guards: global state (grad mode,
#   the default device, ...), checked once per call whatever the function;
# - then one `GuardManager` per value the trace read: `source=L['a']` is the local (`L`) named `a`;
#   globals are `G[...]`, attributes and items follow the path (`L['self'].layers[0].weight`);
# - under each, the guards on that value: `TENSOR_MATCH` (dtype, device, `requires_grad`, size and
#   stride), `DIMENSION_DYNAMIC_MARKING_GUARD` (which dimensions were marked dynamic, section
#   4.1.1), `NO_TENSOR_ALIASING` (`a` and `b` are not the same tensor), `EQUALS_MATCH` on the float
#   (the guard filter called it `CONSTANT_MATCH`: the log names the check, the filter the guard that
#   made it);
# - after a guard, `# return a * alpha + ...  # ...:NN in blend`: **the line of your code that made
#   Dynamo install it**. When a guard keeps failing, this is where to look.

# %%
tensor_guards = tree.of("TENSOR_MATCH")
float_guard = [line for line in tree.of("EQUALS_MATCH") if "alpha" in line.text]
print("TENSOR_MATCH:", [g.text.split(",")[0] for g in tensor_guards], "| on alpha:", [g.text for g in float_guard])
print("installed by:", {g.user_code for g in tensor_guards + float_guard}, {g.where.rsplit(" in ", 1)[-1] for g in tensor_guards})
assert len(tensor_guards) == 2 and len(float_guard) == 1 and "0.25" in float_guard[0].text
assert all("a * alpha" in g.user_code and g.where.endswith(" in blend") for g in tensor_guards + float_guard)
drift("the guard log is a tree with the user's source line after each guard",
      bool(tree.lines) and all(g.user_code for g in tensor_guards + float_guard))

# %% [markdown]
# ### 1.3.2 What is not guarded by default
#
# Guards make compiled code safe to reuse, but a few checks are left out by default because they
# cost time on every call and the change they catch is rare. The flags are in
# `torch._dynamo.config`, and all three are on:

# %%
flags = ("skip_nnmodule_hook_guards", "skip_no_tensor_aliasing_guards_on_parameters", "skip_tensor_guards_with_matching_dict_tags")
for flag in flags:
    print(f"{flag} = {getattr(torch._dynamo.config, flag)}")
drift("hooks, parameter aliasing and dict-tagged tensors are not guarded by default",
      tuple(getattr(torch._dynamo.config, flag) for flag in flags))

# %% [markdown]
# The first one is the one to remember: **a hook registered on a module after it was compiled is
# not seen**. Here a forward hook that zeroes the output is added to a `Linear` that has already run
# compiled once. The eager module applies it; the compiled one returns the old answer, with no
# error and no recompile:

# %%
def hook_added_after_compiling():
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 4)
    compiled_linear = torch.compile(linear, backend="eager")
    x = torch.randn(2, 4)
    compiled_linear(x)
    linear.register_forward_hook(lambda module, args, output: output * 0)
    return linear(x).abs().sum().item(), compiled_linear(x).abs().sum().item()


torch._dynamo.reset()
eager_sum, compiled_sum = hook_added_after_compiling()
torch._dynamo.reset()
with torch._dynamo.config.patch(skip_nnmodule_hook_guards=False):
    guarded_eager, guarded_compiled = hook_added_after_compiling()
torch._dynamo.reset()
print(f"default:                         eager {eager_sum:.2f}, compiled {compiled_sum:.2f}")
print(f"skip_nnmodule_hook_guards=False: eager {guarded_eager:.2f}, compiled {guarded_compiled:.2f}")
assert eager_sum == 0.0 and compiled_sum > 0.0  # the compiled module ignored the hook
assert guarded_eager == guarded_compiled == 0.0  # guarded: the hook is seen, Dynamo recompiles

# %% [markdown]
# Register hooks before the first compiled call, or turn the guard back on
# (`torch._dynamo.config.skip_nnmodule_hook_guards = False`) when hooks come and go. Chapter 6 goes
# the other way: it removes more guards on purpose, to make each call cheaper, and shows what each
# removal can miss.

# %% [markdown]
# ### Exercise: monitor_hooks
#
# A monitor attaches clipping hooks to a compiled model while it serves, and the answers do not
# change. Make the compiled model follow every attach and detach, with every request still
# compiled.
# Edit [exercises/01_dynamo_core/monitor_hooks.py](../exercises/01_dynamo_core/monitor_hooks.py):

# %%
# !{sys.executable} ../exercises/01_dynamo_core/monitor_hooks.py 2>&1 | tail -n 2

# %%
check("monitor_hooks")

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
drift("the recompile limit is 8 compiled entries per function", limit)

# %% [markdown]
# A side effect on a global object is the classic way to reach that limit. Dynamo guards on what
# the trace read, here the length of the global list `seen`. Each call appends to it, so the next
# call fails that guard and compiles again: a *recompile storm*. After 8 entries Dynamo stops
# compiling *new* variants of this function and logs a warning, with no error. A later call that
# one of the 8 entries accepts still runs compiled code; a call that none accepts runs in plain
# Python. Here no later call can match (the list only grows), so every call after the eighth runs
# eagerly. `compiled_calls` shows how many calls still ran a graph.

# %%
seen = []


def track(x):
    seen.append(x.shape[0])     # mutates a global list
    return x * 2


with logged_warnings() as warned:  # the limit's notice: shown and read in the next cells
    t = tally_calls(track, [(torch.randn(5),) for _ in range(12)])
print(t)
print("first failing guards:", t.recompile_reasons[:2])
assert t.graphs == limit and t.recompiles == limit - 1
assert t.compiled_calls == limit and t.calls == 12  # the calls after the limit ran in plain Python
assert all("seen" in failed_guard(reason).subject for reason in t.recompile_reasons)  # every failing guard is on `seen`
assert len(seen) == 12  # the append still ran on every call

# %% [markdown]
# The first entry was compiled when `seen` was empty (`not G['seen']`), the second when it had one
# item, and so on. Once there are several entries, a recompile message lists the failing guard of
# every entry, newest first, so `recompile_reasons` grows quickly.
#
# When the limit is hit, Dynamo says so in a logging warning (not a Python warning) that names the
# function and the guard that failed last. And a call that an old entry accepts is still compiled:
# below, `dynamic=False` makes each new length a new entry; after the limit, a length seen before
# runs compiled code, a new one does not.

# %%
def scale(x):
    return torch.tanh(x) * 2


lengths = list(range(2, 2 + limit + 2)) + [2, 50]  # two lengths past the limit, then an old one and a new one
with logged_warnings() as limit_warnings:
    records = call_timeline(scale, [(torch.ones(n),) for n in lengths], dynamic=False)
print("compiled code ran:", [(n, r.compiled) for n, r in zip(lengths, records)])
notice = next(message for message in limit_warnings if "recompile_limit" in message)
print("\n".join(notice.splitlines()[:3]))
assert [r.compiled for r in records] == [True] * limit + [False, False] + [True, False]
assert "'scale'" in notice  # the warning names the function

# %% [markdown]
# Eight lengths compiled, the next two ran eagerly, length 2 ran compiled again from its old entry,
# and the new length ran eagerly. So "past the limit" means: no new entries, old ones still used.
#
# The limit can be lowered or raised. Raising it only hides a storm; lowering it shows the fallback
# sooner:

# %%
seen.clear()
with torch._dynamo.config.patch(recompile_limit=3), logged_warnings():
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
    with logged_warnings():
        tally_run(track, twelve_calls, fullgraph=True)
    error = None
except Exception as exc:
    error = exc
print(f"{type(error).__name__}: {str(error).splitlines()[0]} (on call {len(calls_started)})")
assert isinstance(error, torch._dynamo.exc.FailOnRecompileLimitHit) and len(calls_started) == limit + 1

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
# - `dynamic=True`: sizes are symbols from the first compile (integer arguments too). The shapes of
#   a module's parameters and buffers stay static even then
#   (`torch._dynamo.config.force_parameter_static_shapes`).
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
symbolic_inputs = [[type(node.meta.get("example_value")).__name__ for node in gm.graph.nodes if node.op == "placeholder"]
                   for gm in captured]
print("graph inputs:", symbolic_inputs)
assert len(captured) == 2 and "SymInt" not in symbolic_inputs[0] and "SymInt" in symbolic_inputs[1]

t = tally_calls(rms_norm, [(torch.randn(rows, 8),) for rows in (2, 3, 4)])
print(t, t.recompile_reasons)
size_guard = failed_guard(t.recompile_reasons[0])
assert t.graphs == 2 and len(t.recompile_reasons) == 1
assert (size_guard.kind, size_guard.subject) == ("size", "x")
drift("parameter shapes stay static under dynamic=True",
      (torch._dynamo.config.force_parameter_static_shapes, torch._dynamo.config.force_nn_module_property_static_shapes))

# %% [markdown]
# Sizes 0 and 1 are special. A symbolic size of the usual kind, a *backed* one (it comes with the
# real size of the first input, which Dynamo uses to decide what it cannot prove), is assumed to be
# at least 2. That lets the compiler decide at once that a dimension does not broadcast (only size 1
# broadcasts) and is not empty, without a guard for every such question. So a call with 0 or 1 rows
# does not fit the symbolic graph and gets a graph of its own, even with `dynamic=True`: batches of 0
# and 1 rows followed by bigger batches give three graphs. (An *unbacked* size avoids this, at a
# price: section 4.1.2.)

# %%
t = tally_calls(rms_norm, [(torch.randn(rows, 8),) for rows in (0, 1, 2, 3, 4)], dynamic=True)
print(t)
for reason in t.recompile_reasons:
    print("   ", reason)
assert t.graphs == 3 and t.recompiles == 2
assert (failed_guard(t.recompile_reasons[0]).kind, failed_guard(t.recompile_reasons[0]).subject) == ("size", "x")

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
# One more thing decides recompiles: the backend. The tracing, the breaks and the guards above are
# Dynamo's, and the `eager` backend, which runs the graph as captured, shows them exactly. Inductor,
# which generates code, may add guards of its own while it compiles: here, for a reshape followed by
# a softmax, its CPU code generator assumes the symbolic number of rows has an upper bound, and
# guards on it. A call with 5000 rows then recompiles under Inductor only. (This cell runs Inductor:
# a few seconds.)

# %%
def row_softmax_sum(x):
    return x.reshape(-1, 8).softmax(-1).sum(0)


two_sizes = [(torch.randn(6, 8),), (torch.randn(5000, 8),)]
under_eager = tally_calls(row_softmax_sum, two_sizes, dynamic=True)
under_inductor = tally_calls(row_softmax_sum, two_sizes, dynamic=True, backend="inductor")
print("eager backend:   ", under_eager)
print("inductor backend:", under_inductor, under_inductor.recompile_reasons)
assert under_eager.graphs == 1
drift("Inductor bounds a dynamic size while lowering a reshape and softmax", (under_eager.graphs, under_inductor.graphs))

# %% [markdown]
# So "the eager backend shows what Inductor would do" holds for graphs and breaks, and for the
# guards Dynamo installs; a recompile can still differ. When recompiles matter, check them under the
# backend you deploy with.
#
# ### Exercise: dynamic_batches
#
# Serve every batch size of `score`, from 2 rows up, from at most two graphs, with every call
# compiled; find out first why it recompiles today. Edit
# [exercises/01_dynamo_core/dynamic_batches.py](../exercises/01_dynamo_core/dynamic_batches.py) and
# run the check. `hint("dynamic_batches")` gives hints one at a time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/dynamic_batches.py 2>&1 | tail -n 20

# %%
check("dynamic_batches")

# %% [markdown]
# ### Exercise: dynamic_predict
#
# Write the rule for the number of graphs a compiled function gives for any `dynamic=` setting and
# any list of input sizes: the function `predict_graphs(dynamic, sizes)` in
# [exercises/01_dynamo_core/dynamic_predict.py](../exercises/01_dynamo_core/dynamic_predict.py). The
# grader runs experiments of its own and compares. `hint("dynamic_predict")` gives hints one at a
# time.

# %%
# !{sys.executable} ../exercises/01_dynamo_core/dynamic_predict.py 2>&1 | tail -n 20

# %%
check("dynamic_predict")

# %% [markdown]
# ## Summary
#
# - Dynamo records torch operations into graphs; loops over Python values are unrolled, Python
#   branches are decided and guarded, calls are inlined, side effects are replayed (1.1).
# - What it cannot trace is a graph break: a graph before, Python for the part, a resume function
#   after; with `fullgraph=True` an error (1.2). Read the whole message: type, explanation, hints,
#   the registry id, and the user stack, whose last frame is the culprit (1.2.1);
#   `torch._dynamo.explain` lists every break of one run (1.2.2).
# - Guards decide whether a cached graph may run: tensor metadata, Python values the trace read,
#   global state (1.3); `TORCH_LOGS=guards` shows them as a tree, each with the line of your code
#   that caused it (1.3.1). A hook added after compiling is not guarded by default (1.3.2).
# - A call that fails every entry's guards recompiles; at the recompile limit no new entries are
#   made, old ones still serve the calls they accept, and `fullgraph=True` makes it an error (1.4).
# - `dynamic=None` makes a size symbolic after it changes once, `True` from the start, `False`
#   never; sizes 0 and 1 get graphs of their own; and the backend can add guards of its own (1.5).

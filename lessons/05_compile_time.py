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
# # 5 Reducing compile time
#
# A compile is paid once per graph Dynamo builds, and each one costs tracing, guard building and the
# backend's own work. This chapter cuts that bill in the order you should try things. By the end you
# will be able to:
#
# - stop compiling the same code twice: remove recompiles (5.1) and let one graph serve many sizes
#   (5.2);
# - compile less code per compile: compile the repeated block (5.3), or mark it so that Dynamo traces
#   it once (5.4);
# - measure, so you know which of these matters (5.5);
# - not compile at all when a compile was done before: the compile caches, a warm start in a new
#   process, and the profile that remembers which sizes varied (5.6).
#
# Structural numbers (graphs, recompiles, traced ops, `invoke_subgraph` nodes, cache hits) are
# computed and `assert`ed in the cell that states them; a fact a torch release may change is a named
# drift alarm, `drift("...")`. Timings are printed or plotted but not asserted: on a shared machine a
# compile can take twice as long from one run to the next. The cells use the `eager` and `aot_eager`
# backends (Dynamo, plus AOTAutograd for `aot_eager`), except in 5.6, which is about Inductor's
# caches; Inductor adds a fixed code-generation cost on top but follows the same rule: fewer and
# smaller graphs, less time. Each section ends with an exercise in `exercises/05_compile_time/`:
# run it from here, edit it, and `check("ID")` it; `hint("ID")` gives one hint at a time.

# %%
import sys
import time

import matplotlib.pyplot as plt
import torch

from autograder import check, hint
from autograder.lab import call_timeline, captured_graphs, compile_times_table, drift, frame_report, tally_calls

torch.manual_seed(0)
print(torch.__version__)

# %% [markdown]
# ## 5.1 Avoid unnecessary recompiles
#
# A recompile is a full compile of the frame: Dynamo traces the whole function again and the backend
# compiles the new graph from scratch. A Python float argument is the classic cause. Dynamo first
# bakes the value into the graph as a constant; the next value fails the guard and recompiles, this
# time with the float as an input (floats follow automatic dynamic on 2.13, lesson 4.2). With
# `dynamic=False` every new value recompiles. A tensor argument is a graph input from the start.
#
# `call_timeline` compiles the function, calls it once per argument tuple, and records for each call
# how many graphs were compiled and how long the call took.

# %%
WEIGHTS = [torch.randn(32, 32) / 6 for _ in range(8)]


def score(x, temperature):
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    return torch.softmax(x / temperature, dim=-1)


x = torch.randn(4, 32)
temperatures = (0.5, 0.7, 1.0, 1.3, 1.7, 2.0)
runs = {
    "float, dynamic=False": call_timeline(score, [(x, t) for t in temperatures], backend="aot_eager", dynamic=False),
    "float, default": call_timeline(score, [(x, t) for t in temperatures], backend="aot_eager"),
    "tensor": call_timeline(score, [(x, torch.tensor(t)) for t in temperatures], backend="aot_eager"),
}
graphs = {name: sum(r.graphs for r in records) for name, records in runs.items()}
seconds = {name: sum(r.seconds for r in records) for name, records in runs.items()}
for name in runs:
    print(f"{name:>22}: {graphs[name]} graph(s), {seconds[name]:.2f} s for 6 calls")
drift("floats are not specialized: specialize_float is off by default", torch._dynamo.config.specialize_float)
assert graphs == {"float, dynamic=False": 6, "float, default": 2, "tensor": 1}

# %% [markdown]
# Six graphs with `dynamic=False`, two by default (the second one takes the float as an input, so
# later values reuse it), one when the knob is a tensor. The time follows the graph count; plotted
# call by call, each compile is a spike:

# %%
fig, ax = plt.subplots(figsize=(6, 2.5))
for name, records in runs.items():
    ax.plot(range(1, 7), [r.seconds * 1000 for r in records], marker="o", label=name)
ax.set_xlabel("call")
ax.set_ylabel("ms (compile included)")
ax.set_yscale("log")
ax.legend()
plt.show()

# %% [markdown]
# Everything chapter 4 taught about finding and removing recompiles is the first compile-time fix.
# (Chapter 4's `recompile_lr_tensor` practises the tensor knob; here a float's recompile comes back
# in 5.6, across runs, and in the chapter's last exercise.)

# %% [markdown]
# ## 5.2 Use dynamic shapes to avoid recompiles on shape changes
#
# With `dynamic=False` every new size is a new graph. The default (`dynamic=None`) compiles the
# first size statically and, at the first size change, recompiles once with that dimension
# symbolic; `dynamic=True` is symbolic from the start. For a stream of batch sizes:

# %%
def normalize(x):
    return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)


sizes = [(torch.randn(rows, 16),) for rows in (3, 5, 8, 13, 21, 34)]
graphs = {dynamic: tally_calls(normalize, sizes, dynamic=dynamic).graphs for dynamic in (False, None, True)}
seconds = {}
for dynamic in (False, None, True):
    started = time.perf_counter()
    call_timeline(normalize, sizes, backend="aot_eager", dynamic=dynamic)
    seconds[dynamic] = time.perf_counter() - started
print("graphs:", graphs)
print("seconds:", {k: round(v, 2) for k, v in seconds.items()})
assert graphs == {False: 6, None: 2, True: 1}

# %% [markdown]
# A symbolic graph can cost a little more to compile than one static graph, because the shape
# expressions have to be traced and guarded, but one of them replaces a graph per size. When you know
# which dimension varies, `torch._dynamo.mark_dynamic(x, 0)` before the first call makes just that
# dimension symbolic (chapter 4.1).

# %% [markdown]
# ### Exercise: dynamic_sizes
#
# The grader compiles `normalize` with `dynamic=False` and keeps it so; make one graph serve a
# stream of batch sizes anyway, by changing only the code that calls it. Edit
# [exercises/05_compile_time/dynamic_sizes.py](../exercises/05_compile_time/dynamic_sizes.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/dynamic_sizes.py

# %%
check("dynamic_sizes")

# %% [markdown]
# ## 5.3 Regional compilation
#
# Models are stacks of identical blocks. `torch.compile(model)` traces every block, so the graph (and
# the compile time) grows with the depth. Regional compilation compiles the block instead:
# `block.compile()` on each layer. Every layer runs the same code object, so Dynamo compiles it
# once and the other layers reuse that entry: their parameters are graph inputs, not constants.
#
# A backend that only keeps the graphs it is given counts what each way compiles:

# %%
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(32)
        self.up = torch.nn.Linear(32, 64)
        self.down = torch.nn.Linear(64, 32)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class Stack(torch.nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = torch.nn.ModuleList(Block() for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def ops(gm):
    return sum(1 for node in gm.graph.nodes if node.op == "call_function")


def compile_stack(depth, regional, backend):
    """A fresh Stack compiled whole or per block; returns the model and the graphs its backend saw."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, seen = Stack(depth), []

    def keep(gm, example_inputs):
        seen.append(gm)
        return (backend if callable(backend) else torch._dynamo.lookup_backend(backend))(gm, example_inputs)

    if regional:
        for layer in model.layers:
            layer.compile(backend=keep)
    else:
        model = torch.compile(model, backend=keep)
    return model, seen


x = torch.randn(4, 32)
for regional in (False, True):
    model, seen = compile_stack(8, regional, "eager")
    with torch.no_grad():
        model(x)
    print(f"regional={regional}: {len(seen)} graph(s), ops per graph {[ops(gm) for gm in seen]}")
    if regional:
        assert len(seen) == 1 and ops(seen[0]) == 5
    else:
        assert len(seen) == 1 and ops(seen[0]) == 8 * 5

# %% [markdown]
# The whole-model graph holds 40 ops (5 per block, 8 blocks); the regional one holds 5, and all
# eight layers run it. What that does to the cold compile time, with `aot_eager`, as the stack
# gets deeper (printed and plotted, not asserted):

# %%
def cold_seconds(depth, regional):
    model, _ = compile_stack(depth, regional, "aot_eager")
    started = time.perf_counter()
    with torch.no_grad():
        model(x)
    return time.perf_counter() - started


depths = (4, 12, 24)
times = {regional: [cold_seconds(depth, regional) for depth in depths] for regional in (False, True)}
for depth, whole, regional in zip(depths, times[False], times[True]):
    print(f"depth {depth:>2}: whole model {whole:.2f} s, regional {regional:.2f} s")
fig, ax = plt.subplots(figsize=(5, 2.5))
ax.plot(depths, times[False], marker="o", label="torch.compile(model)")
ax.plot(depths, times[True], marker="o", label="block.compile() per layer")
ax.set_xlabel("blocks")
ax.set_ylabel("cold first call, s")
ax.legend()
plt.show()

# %% [markdown]
# The whole-model time grows with the depth; the regional time stays near one block's compile.
# What regional compilation gives up: the compiler never sees two blocks together, so it cannot fuse
# across a block boundary, and the Python loop over the layers stays eager.

# %% [markdown]
# ### Exercise: regional_blocks
#
# A stack of sixteen identical blocks is compiled as one graph; make the compile trace one block,
# at least three times faster to compile. Edit
# [exercises/05_compile_time/regional_blocks.py](../exercises/05_compile_time/regional_blocks.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/regional_blocks.py

# %%
check("regional_blocks")

# %% [markdown]
# ## 5.4 Hierarchical compilation with nested_compile_region
#
# `torch.compiler.nested_compile_region` keeps one graph for the whole model but marks a function
# as a region: Dynamo traces its body once into a subgraph and puts a call to it,
# `torch.ops.higher_order.invoke_subgraph`, at each place the function is called. Outside
# `torch.compile` the decorator does nothing.

# %%
def layer(x, w):
    return torch.relu(x @ w) + x


region = torch.compiler.nested_compile_region(layer)


def four_layers(x):
    for w in WEIGHTS[:4]:
        x = region(x, w)
    return x


def invoke_nodes(gm):
    return [node for node in gm.graph.nodes if node.target is torch.ops.higher_order.invoke_subgraph]


graphs = captured_graphs(four_layers, x)
calls = invoke_nodes(graphs[0])
print(f"{len(graphs)} graph, {len(calls)} invoke_subgraph nodes, subgraphs {sorted({n.args[1] for n in calls})}")
assert len(graphs) == 1 and len(calls) == 4 and len({n.args[1] for n in calls}) == 1  # one subgraph, called 4 times
assert torch.equal(four_layers(x), region(region(region(region(x, WEIGHTS[0]), WEIGHTS[1]), WEIGHTS[2]), WEIGHTS[3]))

# %% [markdown]
# One graph, four `invoke_subgraph` calls, one subgraph traced once. (The `WEIGHTS` here do not
# require grad; the next cell shows why that matters.) The usual way to use it on a model is a region
# that takes the layer module, `region(layer, x)`, over the model's layers. A region is reused only
# for calls whose inputs look alike, and `requires_grad` is part of that. The first block's input
# `x` does not require grad; the input of every later block is the output of a block with
# parameters, which does. So the first call cannot reuse the shared subgraph, and Dynamo inlines it
# into the parent graph. Give `x` `requires_grad`, or run under `torch.no_grad()` (then no output
# requires grad), and every call is an `invoke_subgraph`:

# %%
def block_step(block, x):
    return block(x)


block_region = torch.compiler.nested_compile_region(block_step)
torch.manual_seed(0)
stack = Stack(6)


def stack_forward(x):
    for block in stack.layers:
        x = block_region(block, x)
    return x


found = {}
for label, grad, x_needs_grad in (("x plain, grad on", True, False), ("x requires grad", True, True), ("no_grad", False, False)):
    with torch.set_grad_enabled(grad):
        graphs = captured_graphs(stack_forward, x.clone().requires_grad_(x_needs_grad))
    calls = invoke_nodes(graphs[0])
    found[label] = (len(graphs), len(calls), len({n.args[1] for n in calls}))
    print(f"{label:>16}: {len(graphs)} graph, {len(calls)} invoke_subgraph nodes over 6 blocks, "
          f"{len({n.args[1] for n in calls})} subgraph")
assert found["x requires grad"] == found["no_grad"] == (1, 6, 1)  # every block a call of one subgraph
drift("nested_compile_region inlines a first call whose input does not require grad", found["x plain, grad on"])

# %% [markdown]
# Five calls for six blocks when the input does not require grad (the first block's ops sit inline
# in the parent graph), six when it does or under `no_grad`; always one subgraph. Expect N-1 calls
# in training with a plain input, N otherwise. Compared with 5.3, the model stays one graph (the
# backend can still optimize around the regions), and the repeated body is traced and compiled
# once.
#
# ### Exercise: nested_region
#
# Keep compiling the whole model as one graph, but make it trace its repeated layer once. Edit
# [exercises/05_compile_time/nested_region.py](../exercises/05_compile_time/nested_region.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/nested_region.py

# %%
check("nested_region")

# %% [markdown]
# ## 5.5 Measuring compile time
#
# Measure before you optimize. Three sources, from coarse to fine:
#
# - the wall time of the first call (what 5.1–5.3 printed);
# - the compilation metrics: one record per *compile* (a frame compiled twice has two), what
#   `TORCH_TRACE` writes as `compilation_metrics` and `tlparse` shows, with
#   `entire_frame_compile_time_s` for each;
# - `torch._dynamo.utils.compile_times()`, which returns a *string* by default (`repr="str"`): a
#   table of the time spent in each phase (tracing, the backend call, building guards), summed over
#   this process.
#
# `frame_report` runs a schedule and returns the compilation-metrics records:

# %%
records = frame_report(score, [(x, t) for t in (0.5, 0.7, 1.0)], backend="aot_eager")
for record in records:
    print(record)
assert [r["compile_id"] for r in records] == ["0/0", "0/1"]
assert all(r["function"] == "score" and r["graph_ops"] > 0 for r in records)

# %% [markdown]
# Two compiles of frame 0 (`0/1` is the recompile for the float, as in 5.1). The phase table
# sums every compile since the last `torch._dynamo.reset()` (which clears it), so compile once more
# and read it:

# %%
torch._dynamo.reset()
torch.compile(score, backend="aot_eager")(x, 0.5)
table = compile_times_table()
print(table)
assert isinstance(table, str) and len(table.splitlines()) > 1  # a header and one row per phase

# %% [markdown]
# In a terminal, `TORCH_TRACE=/tmp/trace python train.py` followed by `tlparse /tmp/trace/*.log`
# gives the same records as a report (chapter 7). `TORCH_LOGS=dynamo` also prints a
# `Step 1: torchdynamo done tracing` / `Step 2: calling compiler function` line per compile.

# %% [markdown]
# ### Exercise: measure_compile
#
# Read the compilation metrics of a pipeline that breaks once before a deep encoder: how many frames
# were compiled, and where the ops went. Edit
# [exercises/05_compile_time/measure_compile.py](../exercises/05_compile_time/measure_compile.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/measure_compile.py

# %%
check("measure_compile")

# %% [markdown]
# ## 5.6 Compile caches: cold and warm starts
#
# A *cold start* compiles everything from scratch; a *warm start* finds the results of an earlier
# compile on disk and skips most of the work. Dynamo itself always runs (it traces, and builds the
# guards, in every new process); what the caches keep is the work after it:
#
# - the **AOTAutograd cache** (`torch._functorch.config.enable_autograd_cache`) keeps the forward
#   and backward graphs AOTAutograd made from a Dynamo graph;
# - Inductor's **FX graph cache** (`torch._inductor.config.fx_graph_cache`) keeps the code it
#   generated and compiled, keyed on the graph, its inputs' shapes and dtypes, and the configuration.
#
# Both are on by default, and both live in one folder: `TORCHINDUCTOR_CACHE_DIR`, by default
# `/tmp/torchinductor_<user>`. (Lesson 4.5 gives its timing an empty folder and turns the graph
# cache off, so that every compile does the full work: measuring compile time means measuring cold
# starts.) Here one small function is compiled with Inductor, and then compiled again after
# `torch._dynamo.reset()`, which forgets everything Dynamo compiled in this process, as a restart
# would, and leaves the folder alone. Its constant is drawn when the cell runs, so that the graph is
# new to the cache and the first compile really is cold. (This cell runs Inductor: a few seconds
# for the cold compile, more on a machine that never ran Inductor.)

# %%
import os
import tempfile

from torch._dynamo.utils import counters
from torch._inductor.runtime.cache_dir_utils import cache_dir

drift("the FX graph and AOTAutograd caches are on by default",
      (torch._inductor.config.fx_graph_cache, torch._functorch.config.enable_autograd_cache))
previous_cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
print("cache folder:", cache_dir())
SALT = 1.0 + (time.time_ns() % 1_000_003) / 1e7  # a constant no earlier run compiled


def fused(x):
    return (torch.sin(x) * SALT + 1).relu().sum(dim=-1)


def compile_and_call():
    """A compile as a new process would do it: returns (seconds, cache hits and misses)."""
    torch._dynamo.reset()
    counters.clear()
    started = time.perf_counter()
    torch.compile(fused)(torch.randn(8, 16))
    seconds = time.perf_counter() - started
    return seconds, {key: value for group in ("inductor", "aot_autograd") for key, value in counters[group].items()
                     if "cache_hit" in key or "cache_miss" in key}


cold_seconds, cold = compile_and_call()
warm_seconds, warm = compile_and_call()
print(f"cold: {cold_seconds:.2f} s {cold}")
print(f"warm: {warm_seconds:.2f} s {warm}")
assert cold.get("fxgraph_cache_miss") == 1 and cold.get("autograd_cache_miss") == 1 and "fxgraph_cache_hit" not in cold
assert warm.get("fxgraph_cache_hit") == 1 and warm.get("autograd_cache_hit") == 1 and "fxgraph_cache_miss" not in warm

# %% [markdown]
# The warm compile found both results in the folder. A new machine, a container or a CI job starts
# with an empty folder, though. For them, `torch.compiler.save_cache_artifacts()` packs what this
# process compiled into bytes (the *mega-cache*: graphs, generated code, and the profile below), and
# `torch.compiler.load_cache_artifacts(data)`, called before compiling, puts it into the folder of
# the process that loads it. Below, the bytes go to a new, empty folder:

# %%
artifacts, info = torch.compiler.save_cache_artifacts()
print(f"{len(artifacts)} bytes:", dict(info.artifacts))
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="lesson05-fresh-")
torch.compiler.load_cache_artifacts(artifacts)
loaded_seconds, loaded = compile_and_call()
print(f"empty folder, artifacts loaded: {loaded_seconds:.2f} s {loaded}")
assert info.artifacts["inductor"] and info.artifacts["aot_autograd"]
assert loaded.get("fxgraph_cache_hit") == 1 and loaded.get("autograd_cache_hit") == 1

# %% [markdown]
# In a real job: after warm-up, `data, _ = torch.compiler.save_cache_artifacts()` and write `data`
# to a file; in the next job, read it and call `load_cache_artifacts` before the first compiled
# call. What changes the cache key (another torch version, other shapes or dtypes, another
# configuration) is a miss, and compiles as usual.
#
# One more thing can be remembered: which sizes varied. Automatic dynamic (lesson 1.5) learns it
# with a recompile, in every new process. With *profile-guided* recompilation
# (`torch._dynamo.config.automatic_dynamic_local_pgo`, on by default), Dynamo writes what it
# learned into the cache folder and reads it in the next run, but only when it knows two runs are
# the same job: set `torch.compiler.config.job_id` to a name of yours. Two "runs" of a function
# called with three sizes (the `eager` backend is enough, this is Dynamo's work):

# %%
def doubled(x):
    return x * 2


def two_runs(job_id):
    """Graphs compiled in a first and in a second run of a job that calls `doubled` with 3 sizes."""
    torch.compiler.config.job_id = job_id
    try:
        return [tally_calls(doubled, [(torch.randn(n),) for n in (4, 8, 16)]).graphs for _ in range(2)]
    finally:
        torch.compiler.config.job_id = None


drift("profile-guided recompilation is on by default", torch._dynamo.config.automatic_dynamic_local_pgo)
with_job = two_runs("lesson05-demo")
without_job = two_runs(None)
print("graphs in run 1 and run 2, job_id set:", with_job, "| no job_id:", without_job)
assert with_job == [2, 1]  # the second run starts with the size already dynamic
assert without_job == [2, 2]  # without a job id nothing is carried over
os.environ.pop("TORCHINDUCTOR_CACHE_DIR")
if previous_cache_dir is not None:  # back to the folder this notebook started with
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = previous_cache_dir

# %% [markdown]
# ### Exercise: nightly_rerun
#
# A nightly job, started in a new process each night, pays the same float recompile in every run;
# make every later run start with what the first one learned. Edit
# [exercises/05_compile_time/nightly_rerun.py](../exercises/05_compile_time/nightly_rerun.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/nightly_rerun.py

# %%
check("nightly_rerun")

# %% [markdown]
# ### Exercise: warm_restart
#
# A service starts each container with an empty disk and compiles its model cold every time.
# Make a later container start warm from the bytes the first one saved (this cell runs
# Inductor twice, in two fresh processes).
# Edit [exercises/05_compile_time/warm_restart.py](../exercises/05_compile_time/warm_restart.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/warm_restart.py 2>&1 | tail -n 3

# %%
check("warm_restart")

# %% [markdown]
# ### Exercise: rerank_cold_start
#
# The chapter's last exercise has no pointer: a re-ranking service spends far more time compiling
# at every start than its model should need. Measure where the compile time goes (5.5), find the
# two causes the earlier sections taught you to recognise, and make the cold compile at least 1.7
# times faster, with the model still one graph. Edit
# [exercises/05_compile_time/rerank_cold_start.py](../exercises/05_compile_time/rerank_cold_start.py):

# %%
# !{sys.executable} ../exercises/05_compile_time/rerank_cold_start.py

# %%
check("rerank_cold_start")

# %% [markdown]
# ## Summary
#
# - Remove recompiles first: a Python float knob, or any value that changes, belongs in a tensor
#   (5.1); let a size be symbolic rather than compiling once per size (5.2).
# - Compile less per compile: the repeated block instead of the whole stack, at the price of fusion
#   across blocks (5.3), or the whole model with the block as a `nested_compile_region`, traced once
#   (5.4; the first call is inlined when its input does not require grad).
# - Measure before optimizing: the first call's time, one compilation-metrics record per compile,
#   `compile_times()` for the phases (5.5).
# - Keep what was compiled: the AOTAutograd and FX graph caches make a warm start in the same cache
#   folder, `save_cache_artifacts`/`load_cache_artifacts` carry it to a new folder, and a `job_id`
#   lets the next run start with the dynamic sizes it needs (5.6).

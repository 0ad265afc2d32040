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
# # 7 tlparse / TORCH_TRACE and TORCH_LOGS
#
# The earlier chapters counted graphs, breaks and recompiles with the course's own probe. On a
# program you did not write, you need torch's own instruments, which work anywhere:
#
# - `TORCH_LOGS` prints chosen kinds of log, as the compiler works: the graph breaks with their
#   reason and line, each recompile with the guard that failed, the captured graph, the guards, the
#   code Inductor generates (7.1);
# - `TORCH_TRACE` records *everything* about every compile into a file, and `tlparse` turns that
#   file into a report you browse: which frames were compiled, how often, how long each compile
#   took, and every intermediate product (7.2).
#
# Use tlparse for the big picture and TORCH_LOGS for targeted detail. By the end you will be able to:
#
# - turn on the logs you need, in a terminal and in a notebook, and read a run's graph breaks,
#   recompiles, captured graph, guards and generated code from them (7.1);
# - record a trace, render it with tlparse, read the report, and take from it a standalone graph
#   to attach to a bug report, knowing what a trace reveals about your code (7.2).
#
# Every number below is measured by the cell that states it and `assert`ed there; a fact a torch
# release may change is a named drift alarm, `drift("...")`. Some cells run a small program in a
# separate Python process, because that is how both variables are meant to be used: set before the
# program starts. `read_torch_logs(stderr)` (from `autograder.lab`) splits such a program's log
# into records: compile id, artifact, text.

# %%
import contextlib
import html
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import torch
from IPython.display import HTML, display

from autograder import check, hint
from autograder.lab import (
    captured_log, compilations, drift, failed_guard, logged_warnings, parse_guard_tree, read_torch_logs, read_trace,
    structured_trace,
)

print(torch.__version__)
BUILD = Path("build").resolve()  # scratch space for this lesson (git ignores build/)
BUILD.mkdir(exist_ok=True)
TLPARSE = shutil.which("tlparse") or str(Path(sys.executable).with_name("tlparse"))  # installed with the course


def run_python(script: Path, **env) -> subprocess.CompletedProcess:
    """Run a script in a fresh interpreter with extra environment variables; returns its output."""
    return subprocess.run([sys.executable, str(script)], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=300)


class LogBook(logging.Handler):
    """Keeps (artifact, message) for every record torch logs while attached."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append((record.name.rsplit("__", 1)[-1], record.getMessage()))

    def messages(self, artifact):
        return [message for kind, message in self.records if kind == artifact]


@contextlib.contextmanager
def logged(**artifacts):
    """Turn on torch logs with set_logs, as you would in a notebook, and keep what they write (the
    cell shows it on stdout and checks it) instead of letting it print in red below the cell."""
    book = LogBook()
    with logged_warnings("torch._logging") as book.notices:  # what set_logs itself has to say
        torch._logging.set_logs(**artifacts)
        try:
            with captured_log("torch._dynamo"), captured_log("torch._inductor"):
                for name in ("torch._dynamo", "torch._inductor"):
                    logging.getLogger(name).addHandler(book)
                try:
                    yield book
                finally:
                    for name in ("torch._dynamo", "torch._inductor"):
                        logging.getLogger(name).removeHandler(book)
        finally:
            torch._logging.set_logs()


# %% [markdown]
# ## 7.1 TORCH_LOGS
#
# `TORCH_LOGS` is a comma-separated list of what to log. Each entry is either a *component* (a
# part of the compiler: `dynamo`, `aot`, `inductor`, with `+` for DEBUG level and `-` for ERROR
# only) or an *artifact*, one specific kind of record. The artifacts used most:
#
# | artifact | prints |
# | --- | --- |
# | `graph_breaks` | each graph break: line, reason, explanation, user stack |
# | `recompiles` | each recompile: the function, and the guard that failed for each cached variant |
# | `recompiles_verbose` | the same with every failing guard of every variant |
# | `guards` | every guard installed, as a tree, after each compile |
# | `graph_code` | the FX graph Dynamo captured, as Python code |
# | `output_code` | the code Inductor generated (C++ on a CPU, Triton on a GPU) |
#
# In a terminal: `TORCH_LOGS="graph_breaks,recompiles" python my_script.py`. The logs go to
# stderr, each line prefixed with the compile id `[F/C]` it belongs to and its artifact, e.g.
# `[0/1] [__recompiles]`. Here is a small program, written to a file and run that way:

# %%
DEMO = BUILD / "logs_demo.py"
DEMO.write_text('''\
import sys
import torch


def standardize(x):
    return (x - x.mean()) / x.std()


def count_above(x, threshold):
    z = standardize(x)
    print("standardized", tuple(z.shape))
    return (z > threshold).sum()


compiled = torch.compile(count_above, backend="eager")
for number, (x, threshold) in enumerate([(torch.arange(8.0), 0.5), (torch.arange(8.0) * 2, 0.5),
                                         (torch.arange(8.0), 1.0), (torch.arange(16.0), 1.0)], start=1):
    print(f"=== call {number} ===", file=sys.stderr, flush=True)
    compiled(x, threshold)
''')
demo = run_python(DEMO, TORCH_LOGS="graph_breaks,recompiles")
tagged = [line for line in demo.stderr.splitlines() if "[__" in line or line.startswith("===")]
print("\n".join(line.split("] ", 1)[-1] if "[__" in line else line for line in tagged[:60]))
calls = [read_torch_logs(log) for log in demo.stderr.split("=== call ")[1:]]  # the records of each call, in order
kinds = [[record.artifact for record in call] for call in calls]
print("records per call:", kinds)
assert demo.returncode == 0
drift("TORCH_LOGS tags each record with its compile id and artifact", kinds)
assert all("logs_demo.py:11" in r.first_line for call in calls for r in call if r.artifact == "graph_breaks")
threshold_guard = calls[2][0].failed_guards[0]
assert "count_above" in calls[2][0].first_line and (threshold_guard.kind, threshold_guard.subject) == ("value", "threshold")
assert {r.compile_id.split("/")[0] for r in calls[3] if r.artifact == "recompiles"} == {"0", "1"}  # both frames
assert all(g.kind == "size" for r in calls[3] if r.artifact == "recompiles" for g in r.failed_guards[:1])

# %% [markdown]
# Read it call by call (the program prints `=== call N ===` to stderr so the log lines fall under
# the call that caused them):
#
# - call 1: `print` breaks the graph at line 11. The code after the break becomes a function of
#   its own, `torch_dynamo_resume_in_count_above_at_11`, compiled separately;
# - call 2: new values, same shapes: nothing is logged, the cached code is reused;
# - call 3: only `threshold` changed, and only the resume function reads it: the log says
#   `Recompiling function torch_dynamo_resume_in_count_above_at_11`, guard `threshold == 0.5`;
# - call 4: a new length: both functions recompile on a size guard. There is only one graph-break
#   log for call 4, marked `user stack suppressed due to duplicate graph break`.
#
# Each graph-break record is the message of lesson 1.2.1 (type, `Explanation:`, `Hint:`, the
# registry link, the user stack), preceded by `Graph break in user code at FILE:LINE`: the line that
# broke the graph, the first thing to read. Each recompile record names the function and lists, for
# each variant compiled so far, newest first, the guard that failed (`1/0: threshold == 0.5` is the
# guard of variant 0 of frame 1), each followed by the line of your code that made Dynamo install
# it. Read a `guards` log the way lesson 1.3.1 shows.
#
# **In a notebook**, torch reads `TORCH_LOGS` once, when it is imported. Setting
# `os.environ["TORCH_LOGS"]` in a cell afterwards does nothing, and worse, while the variable is
# set torch ignores `torch._logging.set_logs(...)` (it logs a warning saying so). Use `set_logs`,
# which takes the same names as keyword arguments; `set_logs()` with no argument turns them off:

# %%
def scale(x, factor):
    return x * factor


os.environ["TORCH_LOGS"] = "recompiles"  # too late: torch is imported
with logged(recompiles=True) as book:  # ignored while TORCH_LOGS is set
    torch._dynamo.reset()
    compiled_scale = torch.compile(scale, backend="eager")
    compiled_scale(torch.ones(3), 2.0)
    compiled_scale(torch.ones(3), 3.0)
ignored, warning = len(book.messages("recompiles")), book.notices

del os.environ["TORCH_LOGS"]
with logged(recompiles=True) as book:
    torch._dynamo.reset()
    compiled_scale = torch.compile(scale, backend="eager")
    compiled_scale(torch.ones(3), 2.0)
    compiled_scale(torch.ones(3), 3.0)
print("torch's warning:", warning[0] if warning else None)
print("recompile messages with the variable set:", ignored, "| with set_logs:", len(book.messages("recompiles")))
print(book.messages("recompiles")[0])
assert warning and "set_logs" in warning[0]  # torch says it ignored the call
assert ignored == 0 and len(book.messages("recompiles")) == 1
assert "factor" in book.messages("recompiles")[0] and "2.0" in book.messages("recompiles")[0]  # the guard on factor's value

# %% [markdown]
# `graph_code` shows what Dynamo captured, and `guards` what it checks before reusing it. Both say
# things the source does not: which Python values became constants, which branch was taken, which
# module parameters became graph inputs. A small module with a Python-side switch:

# %%
SETTINGS = {"gate": "sigmoid", "margin": 0.5}


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.score = torch.nn.Linear(6, 6)

    def forward(self, x):
        gate = torch.sigmoid if SETTINGS["gate"] == "sigmoid" else torch.tanh
        return x * gate(self.score(x) - SETTINGS["margin"])


torch._dynamo.reset()
with logged(graph_code=True, guards=True) as book:
    torch.compile(Gate(), backend="eager")(torch.ones(2, 6))
graph_text = book.messages("graph_code")[0]
guard_text = "\n".join(book.messages("guards"))
guard_tree = parse_guard_tree(guard_text)
inputs = re.findall(r"(\w+): ", re.search(r"def forward\(self, (.*?)\):", graph_text)[1])
settings = [g.text for g in guard_tree if g.kind == "EQUALS_MATCH" and "SETTINGS" in g.text]
print(graph_text.strip())
print("\n".join(line[:130] for line in guard_text.splitlines() if "SETTINGS" in line))
print("graph inputs:", inputs)
assert "torch.sigmoid" in graph_text and "torch.tanh" not in graph_text
assert "- 0.5" in graph_text  # the margin is a constant of the graph
assert len(inputs) == 3 and any("score" in name and "weight" in name for name in inputs)  # x, and the layer's parameters
assert any("gate" in text and "'sigmoid'" in text for text in settings) and any("margin" in text and "0.5" in text for text in settings)

# %% [markdown]
# The graph calls `torch.sigmoid` and subtracts `0.5`: both came from `SETTINGS`, read in Python
# while tracing, so the guards check `G['SETTINGS']['gate'] == 'sigmoid'` and
# `G['SETTINGS']['margin'] == 0.5`. Change either and the function recompiles. The linear layer's
# weight and bias are inputs of `forward`, not constants.
#
# `output_code` shows what Inductor made of a graph. On this CPU that is C++: the four pointwise
# operations and the reduction below become one fused kernel (this cell runs Inductor, which takes
# a few seconds):

# %%
def bump(x):
    return (torch.sin(x) * 2 + 1).relu().sum(dim=-1)


torch._dynamo.reset()
with logged(output_code=True) as book, structured_trace() as bump_trace:  # the trace is kept for 7.2
    torch.compile(bump)(torch.randn(8, 16))
code = "\n".join(book.messages("output_code"))
kernels = sorted({word.split("(")[0] for word in code.split() if word.startswith("cpp_fused_")})
kernel_source = code[code.index("extern \"C\""):].split("\n\"\"\"")[0] if "extern \"C\"" in code else ""
print(kernel_source[:1500])
print(kernels)
drift("Inductor fuses sin, mul, add, relu and sum into one CPU kernel", kernels)

# %% [markdown]
# Other settings worth knowing: `TORCH_LOGS="+dynamo"` is Dynamo's DEBUG log (every bytecode it
# traces: long), and `TORCH_LOGS_OUT=file.txt` also writes the logs to a file. `TORCH_LOGS="help"`
# makes `import torch` stop with an explanation of the syntax and examples; a misspelled name makes
# it stop with an error that lists every valid setting.
#
# ### Exercise: logs_breaks_guards
#
# Someone else's program breaks its graph and recompiles on some of its five calls. From its
# logs, find the line that breaks the graph, the function and the guard of the recompile on call
# 3, and how many functions recompile on call 4. Edit
# [exercises/07_observability/logs_breaks_guards.py](../exercises/07_observability/logs_breaks_guards.py)
# (running it turns the logs on):

# %%
# !{sys.executable} ../exercises/07_observability/logs_breaks_guards.py 2>&1 | grep "===\|Graph break in user code\|Recompiling\|- [0-9]*/[0-9]*:" | head -n 20

# %%
check("logs_breaks_guards")

# %% [markdown]
# ### Exercise: logs_graph_code
#
# Read a module's captured graph and guards: how many inputs the graph takes, which constant it
# multiplies by, which activation it calls, and which configuration keys are guarded. Edit
# [exercises/07_observability/logs_graph_code.py](../exercises/07_observability/logs_graph_code.py):

# %%
# !{sys.executable} ../exercises/07_observability/logs_graph_code.py 2>&1 | grep "def forward\|= linear \* \|CONFIG'\]\['" | cut -c 1-220

# %%
check("logs_graph_code")

# %% [markdown]
# ## 7.2 tlparse and TORCH_LOGS together
#
# `TORCH_TRACE=DIR` makes every compile write structured records into one file per process in
# `DIR` (`dedicated_log_torch_trace_*.log`). The file is not meant for reading: each line is a
# JSON header naming the compile (`frame_id`, `frame_compile_id`, `attempt`) and the kind of record,
# followed by its payload. `tlparse` (a PyPI package, installed with this course) turns it into a
# set of HTML pages. The workflow in a terminal:
#
#     TORCH_TRACE=/tmp/trace python my_script.py
#     tlparse /tmp/trace/dedicated_log_torch_trace_*.log -o /tmp/tl_out --overwrite --no-browser
#
# (`tlparse DIR --latest` should pick the newest log of a directory, but tlparse 0.4.3 refuses it
# here, a bug of that tlparse release, not of torch; pass the file.) A program with a model, a
# helper that prints, and batches of three sizes:

# %%
TRACED = BUILD / "trace_demo.py"
TRACED.write_text('''\
import torch


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.ReLU(), torch.nn.Linear(12, 3))

    def forward(self, x):
        return self.body(x)


def center(x):
    return x - x.mean(dim=0)


def show(probs):
    print("batch of", probs.shape[0])


def classify(model, x):
    probs = model(center(x)).softmax(dim=-1)
    show(probs)
    return probs.argmax(dim=-1)


torch.manual_seed(0)
model = Classifier()
compiled = torch.compile(classify, backend="eager")
for rows in (4, 4, 8, 16):
    compiled(model, torch.randn(rows, 6))
''')
trace_dir, report_dir = BUILD / "trace", BUILD / "tl_out"
shutil.rmtree(trace_dir, ignore_errors=True)
traced = run_python(TRACED, TORCH_TRACE=str(trace_dir))
(log_file,) = trace_dir.glob("dedicated_log_torch_trace_*.log")
rendered = subprocess.run([TLPARSE, str(log_file), "-o", str(report_dir), "--overwrite", "--no-browser"],
                          capture_output=True, text=True, timeout=300)
print(rendered.stdout.strip() or rendered.stderr.strip())
compile_ids = list(json.loads((report_dir / "compile_directory.json").read_text()))
print("compile ids in the report:", compile_ids)
assert traced.returncode == 0 and rendered.returncode == 0 and (report_dir / "index.html").is_file()
assert {"[0/0]", "[0/1]", "[1/0]", "[1/1]", "[2/0]", "[2/1]"} <= set(compile_ids)

# %% [markdown]
# The report, inside JupyterLab (the same page is `lessons/build/tl_out/index.html`: open it in a
# browser tab to follow its links to each compile's artifacts):

# %%
index = (report_dir / "index.html").read_text()
# In a <div>: IPython warns about a bare <iframe> (it suggests its IFrame class, which needs a URL).
display(HTML(f'<div><iframe srcdoc="{html.escape(index)}" style="width:100%;height:560px;border:1px solid #bbb"></iframe></div>'))

# %% [markdown]
# What the report shows, top to bottom:
#
# - **Stack trie**: every Python stack that triggered a compile, merged into a tree, with the
#   compile ids that started there as links. Its colours tell a clean compile from one that had to
#   *restart* (a graph break makes Dynamo trace the frame again, up to the break) and from one that
#   produced an empty graph. On an unfamiliar code base this is the map: where compiling happens.
# - **Compile ids** `[F/C]`: F numbers the *frames* (Python functions Dynamo compiled, resume
#   functions included), C counts the compiles of frame F: `[1/1]` is the first recompile of frame
#   1. `[F/C_A]` marks attempt A of that compile, after a restart.
# - **Failures and restarts**, then per compile id the **artifacts**: `dynamo_output_graph` (the
#   graph), `dynamo_cpp_guards_str` (its guards), `recompile_reasons`, `dynamo_graph_break_reason`,
#   and `compilation_metrics`: one page per compile with its function, operation count, guard count,
#   recompile reason and timings (`entire_frame_compile_time_s`, `backend_compile_time_s`...).
#
# The same records can be read without tlparse: `compilation_metrics` is JSON in the trace file.
# The course's `read_trace` and `compilations` parse them (the grader uses them too):

# %%
metrics = compilations(read_trace(trace_dir))
for c in metrics:
    reason = (c.recompile_reason or "").splitlines()[0] if c.recompile_reason else ""
    print(f"[{c.compile_id}{'_' + str(c.attempt) if c.attempt else ''}] {c.function:<40} ops={c.ops:<3} "
          f"{c.seconds:.3f}s  {reason}")
frames = {c.frame for c in metrics}
recompiled = [c for c in metrics if c.recompile_reason]
assert len(frames) == 3 and len(metrics) == 6
drift("a graph break restarts the analysis of its frame", [c.function for c in metrics if c.attempt])
assert len(recompiled) == 3 and all(failed_guard(c.recompile_reason.splitlines()[-1].strip().lstrip("- ")).kind == "size"
                                    for c in recompiled)

# %% [markdown]
# Three frames, six compiles. Frame 0 is `classify` up to the call of `show` (the model and
# `center` are inlined into it); the `print` in `show` broke the graph, so Dynamo restarted the
# frame to stop before the call (attempt 1: `[0/0_1]`). Frame 1 is `show` itself, compiled on its
# own and also broken by its `print` (0 operations); frame 2 is the resume function of `classify`
# after the call. The first batch size compiles all three; the second size recompiles each one on
# a size guard, this time with a dynamic batch dimension; the third size reuses those graphs.
#
# **Together.** tlparse answers "where and how often": which frames, which compile ids, which took
# time. Once it points at a frame, TORCH_LOGS gives the detail on the terminal, and both can be on
# in the same run. Here the recompile log and the trace agree on the reasons:

# %%
shutil.rmtree(trace_dir, ignore_errors=True)
both = run_python(TRACED, TORCH_TRACE=str(trace_dir), TORCH_LOGS="recompiles")
logged_guards = [line.split(": ", 1)[1].strip() for line in both.stderr.splitlines()
                 if "[__recompiles]" in line and "    - " in line and ": tensor" in line]
traced_guards = [line.split(": ", 1)[1].strip() for c in compilations(read_trace(trace_dir))
                 for line in (c.recompile_reason or "").splitlines() if ": tensor" in line]
print("\n".join(logged_guards))
assert logged_guards and sorted(logged_guards) == sorted(traced_guards)

# %% [markdown]
# `TORCH_COMPILE_DEBUG=1` is a shortcut that, among much else, writes such a trace under
# `torch_compile_debug/`. For a program that runs for hours, TORCH_TRACE costs little: write the
# trace once, study it with tlparse, then rerun small pieces with TORCH_LOGS.
#
# **A trace is also a bug report's best attachment, and it is not private.** It holds the source
# lines of every frame it compiled, the graphs, the guards (with the values they compare against,
# such as `SETTINGS` above) and the shapes of the tensors, but not the tensors' values: no weights,
# no data. Zip the whole tlparse output folder (`tl_out`) when a maintainer asks for it, after
# checking that the code in it may be shared.
#
# For a compile that Inductor did, the trace carries one artifact that is worth more than the rest
# when you report a bug: `fx_graph_runnable`, a standalone script with the graph Inductor received
# (as ATen operations), code that makes random inputs of the recorded shapes, and a call to run it.
# tlparse links it from each compile's page. Here it is for `bump`, compiled above with Inductor,
# taken from the same structured trace and run in a fresh interpreter:

# %%
runnable = next(payload for metadata, payload in bump_trace
                if metadata.get("artifact", {}).get("name") == "fx_graph_runnable")
RUNNABLE = BUILD / "fx_graph_runnable.py"
RUNNABLE.write_text(runnable)
print("\n".join(line for line in runnable.splitlines() if "class Repro" in line or "torch.ops.aten" in line))
RUN_IT = BUILD / "run_fx_graph_runnable.py"
RUN_IT.write_text(f'''\
import runpy
from torch._dynamo.repro.after_aot import run_repro

script = runpy.run_path({str(RUNNABLE)!r})  # the graph and its input maker, without the script's own run
module, args = run_repro(script["mod"], script["load_args"], accuracy=False, command="get_args", save_dir=None,
                         tracing_mode="real", check_str=None)
print("output shape:", tuple(module(*args)[0].shape))
''')
ran = run_python(RUN_IT)
print(ran.stdout.strip() or ran.stderr[-500:])
assert ran.returncode == 0 and "output shape: (8,)" in ran.stdout
assert "torch.ops.aten.sin" in runnable and "load_args" in runnable  # the graph in ATen ops, and a maker of inputs

# %% [markdown]
# Chapter 8 comes back to it: such a script is often the first draft of a minimal reproducer.
#
# ### Exercise: trace_report
#
# Record the trace of someone else's program, render it with tlparse, and read the report: how
# many frames and compiles, which frame compiled most often, which compile made the largest graph.
# Edit [exercises/07_observability/trace_report.py](../exercises/07_observability/trace_report.py).
# The first cell below records the trace and renders it into `lessons/build/tl_report/index.html`
# (open it in a browser tab, or show it here as above); the second runs the file plainly:

# %%
# !rm -rf build/trace_report && TORCH_TRACE=build/trace_report {sys.executable} ../exercises/07_observability/trace_report.py > /dev/null && {TLPARSE} build/trace_report/dedicated_log_torch_trace_*.log -o build/tl_report --overwrite --no-browser > /dev/null 2>&1 && echo "report written: lessons/build/tl_report/index.html"

# %%
# !{sys.executable} ../exercises/07_observability/trace_report.py 2>&1 | tail -n 4

# %%
check("trace_report")

# %% [markdown]
# ### Exercise: logs_find_fix
#
# A scoring loop breaks its graph and recompiles on every step, until Dynamo gives up and runs it
# eagerly. Nothing in the code says so: find both causes with TORCH_LOGS (or a trace), then fix
# them. Edit
# [exercises/07_observability/logs_find_fix.py](../exercises/07_observability/logs_find_fix.py):

# %%
# !{sys.executable} ../exercises/07_observability/logs_find_fix.py 2>&1 | tail -n 3

# %%
check("logs_find_fix")

# %% [markdown]
# ## Summary
#
# - `TORCH_LOGS` (in a terminal) or `torch._logging.set_logs` (in a notebook; ignored while the
#   variable is set) prints chosen records as the compiler works, each tagged `[frame/compile]` and
#   with its artifact: `graph_breaks` (the whole message of lesson 1.2.1, under the line that broke),
#   `recompiles` (one failing guard per cached variant), `guards` (the tree of lesson 1.3.1),
#   `graph_code`, `output_code` (7.1).
# - `TORCH_TRACE` records everything about every compile; `tlparse` renders it: the stack trie,
#   compile ids with restarts, and each compile's artifacts and metrics. Use it for the map, and
#   `TORCH_LOGS` for detail (7.2).
# - A trace holds your source lines, graphs and guards, not your tensors' values: share it with
#   care. For an Inductor compile it includes `fx_graph_runnable`, a script that runs the graph on
#   its own: a reproducer's first draft (7.2, chapter 8).

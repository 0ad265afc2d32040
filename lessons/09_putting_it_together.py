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
# # 9 Putting it together
#
# Each chapter so far handed you one problem with its name on it: a graph break, a recompile, a
# guard. A real model that is slow once compiled has several at once, and nothing names them: the
# answers are right, the program runs, and compiling simply buys less than it should, or nothing.
# This chapter is about that situation. First you diagnose a small slow model with the tools of
# the earlier chapters, in the order you would use them on code you did not write (9.1); then you
# fix a small transformer server that has several of the course's problems at once, in one file,
# and the grader times what your fix buys (9.2).
#
# By the end you will be able to:
#
# - measure first: time a model eagerly and compiled, and tell "compiling bought nothing" from
#   "compiling is slow" (9.1);
# - count what the compiler did (graphs, graph breaks, recompiles, calls that ran compiled code)
#   with the course's probe and with `torch._dynamo.explain`, then read each cause from
#   `TORCH_LOGS=graph_breaks,recompiles` and from a `TORCH_TRACE` rendered by tlparse (9.1);
# - fix several causes in one file, each with the chapter that teaches it, and check the speed
#   the fix buys (9.2).
#
# Every number below is measured by the cell that states it and `assert`ed there. A cell that
# runs a program under `TORCH_LOGS` or `TORCH_TRACE` starts a separate Python process, because
# both are read when a program starts (chapter 7).

# %%
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import torch

from autograder import check, hint
from autograder.lab import (
    compilations, failed_guard, gb_id, logged_warnings, one_thread, read_torch_logs, read_trace, speed_bars, tally_run, timed_in_turns, timing_summary,
)

print(torch.__version__)
BUILD = Path("build").resolve()  # scratch space for this lesson (git ignores build/)
BUILD.mkdir(exist_ok=True)
TLPARSE = shutil.which("tlparse") or str(Path(sys.executable).with_name("tlparse"))  # installed with the course


def run_python(script: Path, **env) -> subprocess.CompletedProcess:
    """Run a script in a fresh interpreter with extra environment variables; returns its output."""
    return subprocess.run([sys.executable, str(script)], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=300)

# %% [markdown]
# ## 9.1 Diagnosing a slow compiled model with the course's tools
#
# The patient: a small scoring service. `Scorer` embeds each row of a batch, scores it, and logs
# one line per batch with a running count and the mean activation, so that an operator can see
# the service is alive. It is not the exercise's model, but it is ill in the same way: nothing
# fails, and compiled it is barely faster than not, if at all.

# %%
SCORER = '''
import torch


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(16, 64)
        self.head = torch.nn.Linear(64, 1)
        self.batches = 0

    def forward(self, x):
        self.batches += 1
        h = torch.relu(self.embed(x))
        print(f"batch {self.batches}: mean activation {h.mean().item():.3f}")
        return self.head(h).squeeze(-1)


def batches(count=12, rows=8):
    generator = torch.Generator().manual_seed(0)
    return [torch.randn(rows, 16, generator=generator) for _ in range(count)]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.compile(Scorer())
    for x in batches():
        model(x)
'''
scorer_file = BUILD / "scorer.py"
scorer_file.write_text(SCORER)
scorer_module = {"__name__": "scorer"}  # not "__main__": the file's serving loop runs only as a program
exec(compile(SCORER, str(scorer_file), "exec"), scorer_module)
Scorer, batches = scorer_module["Scorer"], scorer_module["batches"]
torch.manual_seed(0)
print(Scorer())

# %% [markdown]
# **Step 1: measure.** Before reading any log, find out whether there is a problem and how large
# it is: time the serving loop eagerly and compiled with Inductor, on one thread, in turns (the
# way the grader's speed checks time a fix: `timed_in_turns` and `timing_summary` are theirs). The
# first pass of the compiled loop compiles, so it is run once before the timing. (About half a
# minute: Inductor compiles the model many times, which is itself a symptom.)

# %%
requests = batches()
eager_model, compiled_model = Scorer(), torch.compile(Scorer())
with one_thread():
    with contextlib.redirect_stdout(io.StringIO()) as served, logged_warnings() as compile_warnings, torch.no_grad():
        for x in requests:  # the warm-up pass: this is where the compiling happens
            compiled_model(x)
        times = timed_in_turns({"eager": lambda: [eager_model(x) for x in requests],
                                "compiled (Inductor)": lambda: [compiled_model(x) for x in requests]},
                               3, 15, min_seconds=0.025)
medians = timing_summary(times, "eager", "eager")["ms"]
speedup = timing_summary(times, "compiled (Inductor)", "eager")["ratio"]
speed_bars(medians, "the scoring service, one thread", "ms per pass of 12 batches (median)")
print({name: round(ms, 3) for name, ms in medians.items()})
print(f"compiled over eager: {speedup:.2f}x; {len(compile_warnings)} warning(s) from the compiler while it compiled")
assert served.getvalue().count("\n") > len(requests)  # every pass logged its lines
assert speedup < 1.3, speedup  # compiling bought nothing worth the name

# %% [markdown]
# Compiling bought nothing (or lost a little): the compiled loop runs at about eager speed. That
# is the signature of code that mostly does not run compiled, or runs as many small graphs. The
# next steps find out which.
#
# **Step 2: count.** The course's probe (`tally_run`, chapter 1) compiles with a backend that
# counts what Dynamo hands it and runs the graphs as captured, so it is quick, and it says how
# many graphs, breaks and recompiles a schedule costs, and how many calls ran compiled code at
# all:

# %%
with contextlib.redirect_stdout(io.StringIO()), logged_warnings():
    counted = tally_run(Scorer(), lambda model: [model(x) for x in requests])
print(counted)
assert counted.graph_breaks >= 1 and counted.recompiles >= 6  # 7 when this lesson was written
assert counted.compiled_calls < counted.calls  # some calls ran no compiled code at all

# %% [markdown]
# Twelve calls, and some ran without any compiled code: a frame that recompiles too often reaches
# `recompile_limit` (8 by default, chapter 4) and Dynamo stops compiling it, so every later call
# runs in plain Python. Breaks are there too. Two questions follow: where does it break, and what
# changes from call to call?
#
# **Step 3: explain the breaks.** `torch._dynamo.explain` (section 1.2.2) runs one call and lists
# each break with its reason and the user line:

# %%
with contextlib.redirect_stdout(io.StringIO()), logged_warnings():
    explanation = torch._dynamo.explain(Scorer())(requests[0])
for reason in explanation.break_reasons:
    frame = reason.user_stack[-1]
    print(f"{gb_id(reason.reason)}: {reason.reason.splitlines()[0][:90]} | {frame.name}, line {frame.lineno}")
print(f"{explanation.graph_count} graphs, {explanation.graph_break_count} break(s)")
break_ids = {gb_id(reason.reason) for reason in explanation.break_reasons}
assert explanation.graph_count == 2 and "GB0124" in break_ids  # Tensor.item() in the log line

# %% [markdown]
# The log line calls `.item()`: to print a Python number, the tensor must leave the graph, so the
# graph ends there (sections 2.2.2 and 2.2.3). One break explains two graphs per call, not a
# recompile on every call.
#
# **Step 4: read the recompiles.** `TORCH_LOGS=graph_breaks,recompiles` prints, while the program
# runs, each break and each recompile with the guard that failed (section 7.1). Run the service
# as its own program, with the variable set before it starts:

# %%
logged = run_python(scorer_file, TORCH_LOGS="graph_breaks,recompiles")
records = read_torch_logs(logged.stderr)
recompiles = [record for record in records if record.artifact == "recompiles"]
guards = [failed_guard(line.strip().lstrip("- ")) for record in recompiles for line in record.text.splitlines()
          if line.strip().startswith("- ")]
print(f"{sum(record.artifact == 'graph_breaks' for record in records)} graph-break record(s), "
      f"{len(recompiles)} recompile record(s)")
on_counter = [guard for guard in guards if guard.subject == "self.batches"]
print("failed guards, by what they guard:", dict(Counter(guard.subject for guard in guards)))
print(f"  the first: kind {guards[0].kind!r} on {guards[0].subject!r}: {guards[0].text}")
assert logged.returncode == 0 and len(recompiles) >= 6
assert len(on_counter) >= 6 and {guard.kind for guard in on_counter} == {"value"}

# %% [markdown]
# Nearly every recompile of `forward` failed the same guard: the value of `self.batches` (the
# others are the resume function after the break, which guards on the text of the line so far). An integer attribute of a
# module is a constant to Dynamo (section 4.3), so a counter that changes on every call compiles
# the model again on every call, until the recompile limit. That is where the time went: the
# warm-up compiled the model over and over, and after that, most calls ran eagerly.
#
# **Step 5: the big picture.** On a larger program, start with a trace instead: `TORCH_TRACE`
# records every compile and tlparse renders it (section 7.2). The compile ids tell the same story
# in one line each: frame 0 is `forward`, compiled once for each value of the counter, and the
# resume function after the break is compiled as well:

# %%
trace_dir, report_dir = BUILD / "scorer_trace", BUILD / "scorer_tl_out"
shutil.rmtree(trace_dir, ignore_errors=True)
traced = run_python(scorer_file, TORCH_TRACE=str(trace_dir))
(log_file,) = trace_dir.glob("dedicated_log_torch_trace_*.log")
rendered = subprocess.run([TLPARSE, str(log_file), "-o", str(report_dir), "--overwrite", "--no-browser"],
                          capture_output=True, text=True, timeout=300)
compile_ids = list(json.loads((report_dir / "compile_directory.json").read_text()))
metrics = compilations(read_trace(trace_dir))
forward_compiles = [c for c in metrics if c.function == "forward"]
print("compile ids:", compile_ids)
print(f"{len(metrics)} compiles in all, {len(forward_compiles)} of forward; the report: lessons/build/scorer_tl_out/index.html")
assert traced.returncode == 0 and rendered.returncode == 0 and (report_dir / "index.html").is_file()
assert len(forward_compiles) >= 8 and len(metrics) > len(forward_compiles)

# %% [markdown]
# The diagnosis, one line per cause, each with the section that teaches the cure:
#
# | what the tools showed | the cause | where the cure is taught |
# | --- | --- | --- |
# | compiled no faster than eager; calls that ran no compiled code | the recompile limit was reached | 4.4, then the causes below |
# | a recompile on every call, the guard on `self.batches` | an int attribute that changes on every call | 4.3 (and 4.2) |
# | two graphs per call, a break at `.item()` in the log line | a Python number taken from a tensor inside the model | 2.2.2, 2.2.3 |
#
# The order matters. Fix what makes the code *not run compiled* first (the recompiles), then what
# splits it (the breaks), and measure again after each change: a cure that does not move the
# timing was not the cause that mattered. And measure the same way each time: the same requests,
# one thread, in turns, medians.
#
# ## 9.2 Fixing several causes in one file, and measuring the speed it buys
#
# The exercise is the same kind of patient, larger: a transformer block behind a server, with
# requests of every length. Diagnose it as above (run its file with `TORCH_LOGS`, trace it, count
# with the probe), fix every cause you find, and keep what the server returns and prints. The
# grader then times your file: compiled with Inductor, a pass of its requests must beat the
# starting code run eagerly, never compiled, on the CPU, and on a CUDA GPU when there is one. That
# baseline is chosen so that tensor work your `serve` does eagerly around the compiled block counts
# in full: against your own code run eagerly, the same eager work would sit on both sides.
#
# ### Exercise: block_server
#
# [exercises/09_putting_it_together/block_server.py](../exercises/09_putting_it_together/block_server.py):
# a server compiles a small transformer block, and compiling buys it nothing. Find out why, fix
# every cause in the one file, and keep the answers and the log lines. Its report says which
# requirement lost which points.

# %%
# !{sys.executable} ../exercises/09_putting_it_together/block_server.py 2>&1 | tail -n 3

# %%
check("block_server")

# %% [markdown]
# ## Summary
#
# - Measure first, the same way every time: eager against compiled, in turns, medians, one thread.
#   "No faster than eager" means the compiled code mostly does not run, or runs in pieces.
# - Count with the probe or `torch._dynamo.explain`: graphs, breaks, recompiles, and calls that
#   ran compiled code. A call that ran none points at the recompile limit.
# - Read the causes with `TORCH_LOGS=graph_breaks,recompiles` (each break's line, each failed
#   guard), or with a `TORCH_TRACE` rendered by tlparse on a program too large to read by hand.
# - Each cause has its chapter: breaks in chapter 2, specialised values and recompiles in chapters
#   1 and 4, guard cost in chapter 6. Fix them one at a time and measure after each.

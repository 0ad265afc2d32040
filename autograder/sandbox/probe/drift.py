"""Drift alarms: the facts about the installed torch that the lessons rely on and a release may change.

A lesson asserts what holds across torch releases (a break's registry id, the kind of a guard, a
count that follows from the code). Some facts cannot be put that way: a default value, a count that
depends on how Dynamo is built today, an internal name the lesson shows, a known Dynamo bug that a
lesson demonstrates. Each such fact is an *alarm*, defined once here:

- its name, a sentence stating the fact ("nested graph breaks are off by default");
- what it expects;
- a function that observes the installed torch, on its own (no lesson needed);
- the lesson sections that rely on it.

A lesson cell calls ``drift(name)`` (or ``drift(name, observed)`` with what the cell itself measured),
and gets ``TorchChanged: torch changed: <name>: expected ..., observed ...`` when the fact no longer
holds: news about torch, not a bug in the lesson, and a pointer to the sections to revisit.
``python -m autograder drift`` runs every alarm (``check_all``).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch._dynamo
import torch._dynamo.exc

_MISSING = object()


class TorchChanged(AssertionError):
    """A drift alarm went off: the installed torch no longer does what a lesson says it does."""


@dataclass(frozen=True)
class Alarm:
    name: str
    expects: Any
    observe: Callable[[], Any]
    sections: tuple  # lesson sections that state or use this fact
    costly: bool = False  # runs Inductor (seconds); everything else is Dynamo with cheap backends

    def message(self, observed) -> str:
        return (f"torch changed: {self.name}: expected {self.expects!r}, observed {observed!r} "
                f"(torch {torch.__version__}). Revisit lesson section(s) {', '.join(self.sections)}.")


ALARMS: dict[str, Alarm] = {}


def alarm(name: str, expects, *sections: str, costly: bool = False):
    """Register the decorated function as the observation of the alarm ``name``."""
    def register(observe):
        if name in ALARMS:
            raise ValueError(f"drift alarm {name!r} is defined twice")
        ALARMS[name] = Alarm(name, expects, observe, sections, costly)
        return observe
    return register


def drift(name: str, observed=_MISSING) -> None:
    """Check the alarm ``name``: with ``observed`` (what a lesson cell measured itself) against what it
    expects, else by running its own observation. Raises TorchChanged when they differ (returns
    nothing, so that a notebook cell ending with it shows no value)."""
    try:
        entry = ALARMS[name]
    except KeyError:
        raise KeyError(f"no drift alarm named {name!r}; the alarms are defined in autograder/sandbox/probe/drift.py") from None
    if observed is _MISSING:
        observed = _observe(entry)
    if observed != entry.expects:
        raise TorchChanged(entry.message(observed))


@dataclass
class Reading:
    alarm: Alarm
    observed: Any
    holds: bool
    error: str = ""


def check_all(names=None, costly: bool = True) -> list[Reading]:
    """Run every alarm (or those named) on the installed torch, each from a clean state."""
    readings = []
    for entry in ALARMS.values():
        if (names and entry.name not in names) or (entry.costly and not costly):
            continue
        try:
            observed = _observe(entry)
            readings.append(Reading(entry, observed, observed == entry.expects))
        except Exception as exc:  # noqa: BLE001 - an observation that breaks is a change too
            readings.append(Reading(entry, None, False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))
    return readings


def _observe(entry: Alarm):
    from .state import clean_state

    clean_state()
    try:
        with _quiet_dynamo():
            return entry.observe()
    finally:
        clean_state()


@contextlib.contextmanager
def _quiet_dynamo():
    """Observations compile on purpose things that break, recompile or warn: keep that off the screen."""
    names = ["torch._dynamo", "torch.fx.experimental.symbolic_shapes", "torch._guards", "torch._subclasses.fake_tensor",
             "torch._inductor"]
    loggers = [logging.getLogger(n) for n in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


# -- helpers for observations ---------------------------------------------------------------------

def _graphs(fn, calls, **options) -> int:
    from .counts import tally_calls

    return tally_calls(fn, calls, **options).graphs


def _raises(fn, *args, backend="eager", **options) -> str | None:
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend=backend, **options)(*args)
    except Exception as exc:  # noqa: BLE001 - the type is the observation
        return type(exc).__name__
    return None


def _default(key: str):
    from .state import config_defaults

    return config_defaults([key]).get(key, "<no such key>")


# ==================================================================================================
# The alarms, by lesson. Each name states the fact as the lesson teaches it.
# ==================================================================================================

# -- defaults ---------------------------------------------------------------------------------------

@alarm("the recompile limit is 8 compiled entries per function", 8, "1.4", "2.5.5.4", "4.4")
def _():
    return _default("recompile_limit")


@alarm("the accumulated recompile limit is 256", 256, "4.4")
def _():
    return _default("accumulated_recompile_limit")


@alarm("nested graph breaks are off by default", False, "2.5.4", "2.5.3.1", "2.5.3.5")
def _():
    return _default("nested_graph_breaks")


@alarm("use_recursive_dict_tags_for_guards is off by default", False, "6.3")
def _():
    return _default("use_recursive_dict_tags_for_guards")


@alarm("install_free_tensors is off by default", False, "6.1")
def _():
    return _default("install_free_tensors")


@alarm("floats are not specialized: specialize_float is off by default", False, "4.2", "5.1")
def _():
    return _default("specialize_float")


@alarm("capture_scalar_outputs is off by default", False, "1.2", "2.2.2", "2.2.2.1")
def _():
    return _default("capture_scalar_outputs")


@alarm("parameter shapes stay static under dynamic=True", (True, True), "1.5")
def _():
    return (_default("force_parameter_static_shapes"), _default("force_nn_module_property_static_shapes"))


@alarm("hooks, parameter aliasing and dict-tagged tensors are not guarded by default", (True, True, True), "1.3.2", "6.2")
def _():
    return (_default("skip_nnmodule_hook_guards"), _default("skip_no_tensor_aliasing_guards_on_parameters"),
            _default("skip_tensor_guards_with_matching_dict_tags"))


@alarm("recursive dict tags assume function dunders are never rebound", True, "6.3")
def _():
    return _default("assume_dunder_attributes_remain_unchanged")


@alarm("TORCHDYNAMO_REPRO_LEVEL is 2 by default", 2, "8.3")
def _():
    return _default("repro_level")


# -- where things live ------------------------------------------------------------------------------

@alarm("error_on_graph_break lives in torch._dynamo only",
       {"torch._dynamo.error_on_graph_break": True, "torch.compiler.error_on_graph_break": False,
        "torch._dynamo.set_fullgraph": False, "torch.compiler.set_fullgraph": False}, "2.5.3")
def _():
    return {"torch._dynamo.error_on_graph_break": hasattr(torch._dynamo, "error_on_graph_break"),
            "torch.compiler.error_on_graph_break": hasattr(torch.compiler, "error_on_graph_break"),
            "torch._dynamo.set_fullgraph": hasattr(torch._dynamo, "set_fullgraph"),
            "torch.compiler.set_fullgraph": hasattr(torch.compiler, "set_fullgraph")}


@alarm("nonstrict_trace lives in torch._dynamo, not torch.compiler", (True, False), "2.3")
def _():
    return (hasattr(torch._dynamo, "nonstrict_trace"), hasattr(torch.compiler, "nonstrict_trace"))


@alarm("mark_unbacked lives in torch._dynamo.decorators only", (True, False), "4.1.2")
def _():
    import torch._dynamo.decorators as decorators

    return (hasattr(decorators, "mark_unbacked"), hasattr(torch._dynamo, "mark_unbacked"))


@alarm("torch.compiler ships six guard-filter presets",
       ["keep_portable_guards_unsafe", "keep_tensor_guards_unsafe", "skip_all_guards_unsafe",
        "skip_guard_on_all_nn_modules_unsafe", "skip_guard_on_globals_unsafe", "skip_guard_on_inbuilt_nn_modules_unsafe"],
       "6.2")
def _():
    return sorted(name for name in dir(torch.compiler) if name.endswith("_unsafe") and name.startswith(("keep_", "skip_")))


# -- lesson 1 ---------------------------------------------------------------------------------------

@alarm("a resume function is named after the function and the line it resumes at", True, "1.2", "2.5.1", "7.1")
def _():
    import re

    from torch._dynamo.utils import counters

    def report(x):
        y = torch.sin(x) * 2
        print("halfway there")
        return torch.cos(y) + 1

    torch.compile(report, backend="eager")(torch.randn(4))
    return [bool(re.fullmatch(r"torch_dynamo_resume_in_report_at_\d+", name)) for name in counters["resumes"]] == [True]


@alarm("fullgraph=True captures .item() into the graph", True, "1.2", "2.2.2", "2.5.3.5")
def _():
    from .counts import fullgraph_error, tally_calls

    def scale_by_mean(x):
        return x * x.mean().item()

    t = tally_calls(scale_by_mean, [(torch.randn(8),)], fullgraph=True)
    return fullgraph_error(scale_by_mean, torch.randn(8)) is None and t.graphs == 1 and t.graph_breaks == 0


@alarm("fullgraph=True captures nonzero() into the graph", True, "2.2.2")
def _():
    from .counts import fullgraph_error

    return fullgraph_error(lambda x: x.nonzero().float().sum(), torch.randn(4)) is None


@alarm("a graph-break message has an explanation, hints, a registry link and the user stack", (True, True, True, 3), "1.2.1")
def _():
    from .messages import graph_break

    def summarize(h):
        return {"peak": max(h.flatten().tolist())}

    def layer(x, w):
        h = torch.relu(x @ w)
        return h, summarize(h)

    def model(x, w):
        h, stats = layer(x, w)
        return h.sum() / stats["peak"]

    brk = graph_break(model, torch.randn(4, 3), torch.randn(3, 3))
    return (bool(brk.explanation), bool(brk.hints), bool(brk.link), len(brk.user_stack))


@alarm("the skipped-function message suggests dont_skip_tracing", True, "1.2.1")
def _():
    from torch.utils.data import default_collate

    from .messages import graph_break

    brk = graph_break(lambda samples: default_collate(samples).mean(dim=0), [torch.randn(3) for _ in range(2)])
    return any("dont_skip_tracing" in hint for hint in brk.hints)


@alarm("explain counts a nested break more often than the break counter", True, "1.2.2")
def _():
    from .counts import tally_calls

    def level_0(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x + 2

    def level_1(x):
        return level_0(x * 2) - 1

    def level_2(x):
        return level_1(x * 3) - 2

    nested = torch._dynamo.explain(level_2)(torch.ones(3))
    return nested.graph_break_count > tally_calls(level_2, [(torch.ones(3),)]).graph_breaks


@alarm("the guard log is a tree with the user's source line after each guard", True, "1.3.1", "7.1")
def _():
    from .messages import guard_log

    def blend(a, b, alpha):
        return a * alpha + b * (1 - alpha)

    tree = guard_log(blend, torch.randn(3), torch.randn(3), 0.25)
    located = tree.of("TENSOR_MATCH") + [g for g in tree.of("EQUALS_MATCH") if "alpha" in g.text]
    return bool(tree.lines) and len(located) == 3 and all(g.user_code for g in located)


@alarm("Inductor bounds a dynamic size while lowering a reshape and softmax", (1, 2), "1.5", costly=True)
def _():
    from .counts import tally_calls

    def row_softmax_sum(x):
        return x.reshape(-1, 8).softmax(-1).sum(0)

    two_sizes = [(torch.randn(6, 8),), (torch.randn(5000, 8),)]
    return (tally_calls(row_softmax_sum, two_sizes, dynamic=True).graphs,
            tally_calls(row_softmax_sum, two_sizes, dynamic=True, backend="inductor").graphs)


# -- lesson 2a --------------------------------------------------------------------------------------

@alarm("a nonstrict_trace call is one flat_apply node in the Dynamo graph", ["flat_apply_capture"], "2.1.2", "2.3")
def _():
    names = []

    def keep(gm, example_inputs):
        names.extend(getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward

    def helper(x):
        y = torch.sin(x) * 2
        torch._dynamo.graph_break()
        return torch.cos(y)

    torch.compile(lambda x: torch._dynamo.nonstrict_trace(helper)(x + 1) - 1, backend=keep, fullgraph=True)(torch.randn(3))
    return [name for name in names if "flat_apply" in name]


# -- lesson 2b --------------------------------------------------------------------------------------

def _sgd_step():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)

    def train_step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        return loss.detach()

    return net, train_step


@alarm("an SGD training step breaks at zero_grad, backward and the optimizer's step", ["GB0008", "GB0025", "GB0123"], "2.5.1")
def _():
    from .counts import tally_calls

    _, train_step = _sgd_step()
    batches = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(2)]
    return sorted(set(tally_calls(train_step, batches).break_type_ids))


@alarm("trace_autograd_ops puts backward() into the graph", (1, 0), "2.5.1")
def _():
    from .counts import tally_calls

    net, _ = _sgd_step()

    def loss_and_grads(x, y):
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        return loss.detach()

    with torch._dynamo.config.patch(trace_autograd_ops=True):
        t = tally_calls(loss_and_grads, [(torch.randn(4, 8), torch.randn(4, 1))], fullgraph=True)
    return (t.graphs, t.graph_breaks)


@alarm("the backward() break's hint names trace_autograd_ops", True, "2.5.1")
def _():
    from .messages import graph_break

    net, _ = _sgd_step()

    def loss_and_grads(x, y):
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        return loss.detach()

    brk = graph_break(loss_and_grads, torch.randn(4, 8), torch.randn(4, 1))
    return any("trace_autograd_ops" in hint for hint in brk.hints)


@alarm("an OptimizedModule's state dict prefixes every key with _orig_mod.", ["_orig_mod.lin.weight", "_orig_mod.lin.bias"],
       "2.5.1.1")
def _():
    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.lin(x))

    return list(torch.compile(Small(), backend="eager").state_dict())


def _chain():
    def level_0(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x + 2

    def level_1(x):
        return level_0(x * 2) - 1

    def level_2(x):
        return level_1(x * 3) - 2

    def level_3(x):
        return level_2(x * 4) - 3

    def level_4(x):
        return level_3(x * 5) - 4

    return [level_0, level_1, level_2, level_3, level_4]


@alarm("a break N calls deep costs 2(N+1) graphs and N+1 breaks", ([2, 4, 6, 8, 10], [1, 2, 3, 4, 5]), "2.5.4", "2.5.3.1")
def _():
    from .counts import tally_calls

    runs = [tally_calls(fn, [(torch.ones(3),)]) for fn in _chain()]
    return ([t.graphs for t in runs], [t.graph_breaks for t in runs])


@alarm("with nested_graph_breaks on, a break at any depth costs 2 graphs and 1 break", True, "2.5.4")
def _():
    from .counts import tally_calls

    with torch._dynamo.config.patch(nested_graph_breaks=True):
        runs = [tally_calls(fn, [(torch.ones(3),)]) for fn in _chain()]
    return all(t.graphs == 2 and t.graph_breaks == 1 for t in runs)


@alarm("a break in a loop is not counted as a graph break", 0, "2.5.5.1")
def _():
    from .counts import tally_calls

    def loop_with_print(x):
        x = torch.tanh(x)
        for step in range(3):
            x = x * 2
            print("step", step)
        return x + 1

    return tally_calls(loop_with_print, [(torch.ones(3),)]).graph_breaks


@alarm("formatting a symbolic float with :.2f crashes Dynamo on the second call", ([1], "InternalTorchDynamoError"), "2.5.5.5")
def _():
    from .counts import tally_run

    def report(x):
        means = x.mean(dim=1).tolist()
        print(f"row means from {min(means):.2f} to {max(means):.2f}")
        return x * 2

    finished = []

    def two_calls(compiled):
        for _ in range(2):
            compiled(torch.randn(3, 4))
            finished.append(len(finished) + 1)

    try:
        tally_run(report, two_calls)
    except Exception as exc:  # noqa: BLE001 - the crash is the observation
        return (finished, type(exc).__name__)
    return (finished, None)


# -- lesson 3 ---------------------------------------------------------------------------------------

@alarm("make_fx traces a copy of an input list", 2, "3.1.3")
def _():
    from torch.fx.experimental.proxy_tensor import make_fx

    def take_first(x, pending):
        return x + pending.pop(0)

    pending = [torch.ones(3), torch.full((3,), 5.0)]
    make_fx(take_first, tracing_mode="fake", _allow_non_fake_inputs=True)(torch.zeros(3), pending)
    return len(pending)


@alarm("Inductor refuses a global tensor read inside nonstrict_trace", ("InductorError", True), "3.1.1", "2.3", costly=True)
def _():
    offset = torch.zeros(3)

    @torch._dynamo.nonstrict_trace
    def add_offset(x):
        return x + offset

    try:
        torch.compile(lambda x: add_offset(x) * 2)(torch.zeros(3))
    except Exception as exc:  # noqa: BLE001 - the failure is the observation
        return (type(exc).__name__, "FakeTensor" in str(exc))
    return (None, False)


# -- lesson 4 ---------------------------------------------------------------------------------------

@alarm("math.log specializes a size; math.log2 and math.sqrt keep it symbolic",
       {"math.log(n)": 8, "math.log2(n)": 2, "math.sqrt(n)": 2}, "4.1")
def _():
    from .counts import tally_calls

    query = torch.randn(16)
    schedule = [(torch.randn(n, 16), query) for n in [5, 9, 3, 12, 7, 2, 10, 4, 13, 6, 11, 8]]

    def make_pool(log_of_length):
        def pool(tokens, query):
            scale = log_of_length(tokens.shape[0])
            return torch.softmax(tokens @ query * scale, dim=0) @ tokens
        return pool

    variants = {"math.log(n)": math.log, "math.log2(n)": lambda n: math.log2(n) * math.log(2), "math.sqrt(n)": math.sqrt}
    return {name: tally_calls(make_pool(fn), schedule).graphs for name, fn in variants.items()}


# -- lesson 5 ---------------------------------------------------------------------------------------

@alarm("nested_compile_region inlines a first call whose input does not require grad", (1, 5, 1), "5.4")
def _():
    from .trace import captured_graphs

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(8, 16)
            self.down = torch.nn.Linear(16, 8)

        def forward(self, x):
            return x + self.down(torch.nn.functional.gelu(self.up(x)))

    blocks = torch.nn.ModuleList(Block() for _ in range(6))
    region = torch.compiler.nested_compile_region(lambda block, x: block(x))

    def forward(x):
        for block in blocks:
            x = region(block, x)
        return x

    graphs = captured_graphs(forward, torch.randn(4, 8))
    calls = [n for n in graphs[0].graph.nodes if n.target is torch.ops.higher_order.invoke_subgraph]
    return (len(graphs), len(calls), len({n.args[1] for n in calls}))


@alarm("the FX graph and AOTAutograd caches are on by default", (True, True), "5.6")
def _():
    import torch._functorch.config
    import torch._inductor.config

    return (torch._inductor.config.fx_graph_cache, torch._functorch.config.enable_autograd_cache)


@alarm("profile-guided recompilation is on by default", True, "5.6")
def _():
    return _default("automatic_dynamic_local_pgo")


# -- lesson 6 ---------------------------------------------------------------------------------------

def _tower(depth=4):
    class Tower(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])
            self.scale = 2.0

        def forward(self, x):
            for layer in self.layers:
                x = torch.relu(layer(x))
            return x * self.scale

    return Tower()


@alarm("install_free_tensors misses a rebound parameter", False, "6.1")
def _():
    torch.manual_seed(0)
    model, x = _tower(), torch.randn(2, 8)
    with torch._dynamo.config.patch(install_free_tensors=True):
        compiled = torch.compile(model, backend="eager")
        compiled(x)
        model.layers[0].weight = torch.nn.Parameter(torch.ones(8, 8))
        return torch.allclose(compiled(x), model(x))


@alarm("recursive dict tags miss a rebound function default", False, "6.3")
def _():
    def helper(v, k=2.0):
        return v * k

    class WithHelper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(8, 8)
            self.act = helper

        def forward(self, v):
            return self.act(self.lin(v))

    module, x = WithHelper(), torch.randn(2, 8)
    with torch._dynamo.config.patch(use_recursive_dict_tags_for_guards=True):
        compiled = torch.compile(module, backend="eager")
        compiled(x)
        compiled(x)
        helper.__defaults__ = (3.0,)
        return torch.allclose(compiled(x), module(x))


# -- lesson 7 ---------------------------------------------------------------------------------------

_LOGS_DEMO = '''\
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
'''


@alarm("TORCH_LOGS tags each record with its compile id and artifact",
       [["graph_breaks"], [], ["recompiles"], ["recompiles", "graph_breaks", "recompiles"]], "7.1")
def _():
    import os
    import subprocess
    import sys
    import tempfile

    from .messages import read_torch_logs

    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "logs_demo.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(_LOGS_DEMO)
        run = subprocess.run([sys.executable, script], env={**os.environ, "TORCH_LOGS": "graph_breaks,recompiles"},
                             capture_output=True, text=True, timeout=300)
    return [[record.artifact for record in read_torch_logs(log)] for log in run.stderr.split("=== call ")[1:]]


@alarm("a graph break restarts the analysis of its frame", ["classify", "show", "classify", "show"], "7.2")
def _():
    from .trace import compilations, structured_trace

    class Classifier(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.ReLU(), torch.nn.Linear(12, 3))

        def forward(self, x):
            return self.body(x)

    def show(probs):
        print("batch of", probs.shape[0])

    def classify(model, x):
        probs = model(x - x.mean(dim=0)).softmax(dim=-1)
        show(probs)
        return probs.argmax(dim=-1)

    model = Classifier()
    compiled = torch.compile(classify, backend="eager")
    with structured_trace() as records:
        for rows in (4, 4, 8, 16):
            compiled(model, torch.randn(rows, 6))
    return [c.function for c in compilations(records) if c.attempt]


@alarm("Inductor fuses sin, mul, add, relu and sum into one CPU kernel", ["cpp_fused_add_mul_relu_sin_sum_0"], "7.1",
       costly=True)
def _():
    from torch._inductor.utils import run_and_get_code

    def bump(x):
        return (torch.sin(x) * 2 + 1).relu().sum(dim=-1)

    _, sources = run_and_get_code(torch.compile(bump), torch.randn(8, 16))
    return sorted({word.split("(")[0] for code in sources for word in code.split() if word.startswith("cpp_fused_")})


# -- lesson 8 ---------------------------------------------------------------------------------------

def _lying_op():
    """A custom operator that adds one to its input in place while declaring mutates_args=()."""
    name = "drift_alarm::bump_"
    existing = getattr(getattr(torch.ops, "drift_alarm", None), "bump_", None)
    if existing is not None:
        return existing

    @torch.library.custom_op(name, mutates_args=())
    def bump_(x: torch.Tensor) -> torch.Tensor:
        x.add_(1)
        return x.sum().reshape(1)

    @bump_.register_fake
    def _(x):
        return x.new_empty(1)

    return bump_


def _plus_total():
    bump_ = _lying_op()

    def plus_total(x):
        y = x * 2
        return y + bump_(y)

    return plus_total


@alarm("a lying mutates_args gives a wrong result under Inductor only", ["ok", "ok", "ok", "wrong result"], "8.1",
       costly=True)
def _():
    from .ablation import ABLATION_BACKENDS, ablate

    inputs = [torch.ones(3), torch.arange(3.0)]
    stages = ablate(_plus_total(), lambda f: [f(x.clone()) for x in inputs], backends=ABLATION_BACKENDS, stop_at_first=False)
    return [stage.status for stage in stages]


@alarm("Inductor recomputes x * 2 from the graph input inside the fused add", True, "8.1", "2.4", costly=True)
def _():
    from torch._inductor.utils import run_and_get_code

    _, sources = run_and_get_code(torch.compile(_plus_total()), torch.ones(3))
    import re

    calls = [line.strip() for code in sources for line in code.splitlines() if re.match(r"\s*cpp_fused_\w+\(", line)]
    return any(call.startswith("cpp_fused_add_mul") and "arg0_1" in call for call in calls)

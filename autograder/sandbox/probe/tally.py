"""The grader's counting backend: every graph it is handed, its compile id, its breaks, and how often compiled code runs."""

from __future__ import annotations

import os
import sysconfig

import torch
import torch._dynamo
import torch._dynamo.exc

from .state import config_changes


_TORCH_DIR = os.path.dirname(torch.__file__)
_STDLIB_DIR = sysconfig.get_paths()["stdlib"]
_RECOMPILE_LOGGER = "torch._dynamo.guards.__recompiles"
_TORCH_NAMESPACES = {"aten", "prims", "prim", "_c10d_functional", "c10d_functional", "higher_order", "quantized", "profiler",
                     "inductor", "debugprims", "rngprims", "fsdp", "_quantized", "_c10d_functional_autograd", "mkldnn", "onednn"}


def _is_user_file(filename: str) -> bool:
    return not (filename.startswith(_TORCH_DIR) or filename.startswith(_STDLIB_DIR) or filename.startswith("<"))


def _same_file(name: str, prefer: str) -> bool:
    """Paths compared as text: the learner's code is compiled from the text the grader read, under its
    path, and that file may be unreadable (or gone) in the process that measures."""
    return os.path.normpath(os.path.abspath(name)) == os.path.normpath(os.path.abspath(prefer))


def _site(frames, prefer: str | None = None) -> dict:
    """The innermost frame of user code (of ``prefer`` when given) as {file, line, function, code}."""
    frames = list(frames or [])
    user = [f for f in frames if _is_user_file(f.filename)]
    preferred = [f for f in user if _same_file(f.filename, prefer)] if prefer else []
    chosen = (preferred or user or frames or [None])[-1]
    if chosen is None:
        return {}
    return {"file": chosen.filename, "line": chosen.lineno, "function": chosen.name, "code": (chosen.line or "").strip()}


def _first_paragraphs(text: str) -> str:
    """Dynamo's message without the user stack and the developer-facing tail."""
    text = text.split("\nfrom user code:")[0]
    kept = [line for line in text.splitlines() if not line.strip().startswith("Developer debug context")]
    return "\n".join(kept).strip()


def poisoned(value, mode: str = "nan", generator: torch.Generator | None = None):
    """A graph's outputs made garbage, same types and shapes: NaN (``mode="nan"``: it survives a
    multiplication by zero) or large random values (``"random"``: an argmax, a sign or a threshold
    of them changes too) for floating tensors; the bitwise complement for integers, the negation
    for booleans."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            if mode == "random":
                return (torch.randn(value.shape, generator=generator, dtype=torch.float64) * 1e3 + 7.0).to(value.dtype)
            return torch.full_like(value, float("nan"))
        if value.is_complex():
            return torch.full_like(value, complex(float("nan"), float("nan")))
        if value.dtype == torch.bool:
            return value.logical_not()
        return value.bitwise_not()
    if isinstance(value, (list, tuple)):
        return type(value)(poisoned(v, mode, generator) for v in value)
    return value


class GraphTally:
    """A backend that records each graph it is given and counts how often compiled code runs.

    ``inner`` optionally names a real backend ("aot_eager", "inductor") that compiles the graph;
    by default the graph runs as captured, which keeps structure checks fast.
    """

    def __init__(self, inner: str | None = None, prefer_file: str | None = None, capture_aot: bool = False):
        self.inner = inner
        self.prefer_file = prefer_file
        # capture_aot: run the graphs through aot_eager and keep the op names of each AOT forward
        # graph, which shows what an escape hatch (nonstrict_trace, a custom op) really traced.
        self.capture_aot = capture_aot
        self.aot_targets: list[str] = []
        self.graphs: list[torch.fx.GraphModule] = []
        self.compile_ids: list[str] = []
        self.breaks: list[dict] = []
        self.runs = 0
        self.runs_skipping_guards = 0  # runs under the stance that skips guard evaluation (chapter 6)
        # A compile id seen again after compiled code ran means Dynamo was reset in between (the
        # learner's torch._dynamo.reset() or torch.compiler.reset()): its counters start over, so
        # that frame's compile again looks like a first compile, not a recompile.
        self._runs_at_first_compile: dict[str, int] = {}
        self.resets = 0
        # Set only in a forked copy of the learner's process (measurement.depends_on_compiled): every
        # graph then returns garbage ("nan" or "random"), to see whether what the learner's code
        # returns came from it.
        self.poisoned: str | None = None
        # measure() sets the configuration its calls start from; each compile then records the keys
        # that differ from it (first old and new value of each): a setting changed only while the
        # calls run (``config.patch`` inside a driver, undone before it returns) is seen here.
        self.config_baseline: dict | None = None
        self.config_at_compile: dict = {}
        self._garbage = torch.Generator().manual_seed(0)

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        if self.config_baseline is not None:
            for key, change in config_changes(self.config_baseline).items():
                self.config_at_compile.setdefault(key, change)
        compile_id = str(torch._guards.CompileContext.current_compile_id())
        self.compile_ids.append(compile_id)
        first = self._runs_at_first_compile.setdefault(compile_id, self.runs)
        if first != self.runs:
            self.resets += 1
            self._runs_at_first_compile[compile_id] = self.runs
        reason = getattr(gm, "compile_subgraph_reason", None)
        if reason is not None and reason.graph_break:
            self.breaks.append({"reason": _first_paragraphs(reason.reason), "type": _break_type(reason.reason),
                                **_site(reason.user_stack, self.prefer_file)})
        if self.capture_aot and self.inner in (None, "aot_eager"):
            compiled = torch._dynamo.lookup_backend("aot_eager")(gm, example_inputs, fw_compiler=self._record_aot)
        else:
            compiled = _runnable(gm).forward if self.inner is None else torch._dynamo.lookup_backend(self.inner)(gm, example_inputs)

        def run_compiled(*args):
            self.runs += 1
            self.runs_skipping_guards += bool(torch._dynamo.eval_frame._stance.skip_guard_eval_unsafe)
            out = compiled(*args)
            return poisoned(out, self.poisoned, self._garbage) if self.poisoned else out

        return run_compiled

    @property
    def recompiles(self) -> int:
        """Compiles whose id says they are a frame's second or later, plus every compile of a frame
        again after a reset (which would otherwise pass for a first one)."""
        return sum(1 for cid in set(self.compile_ids) if _recompile_index(cid) > 0) + self.resets

    def op_counts(self) -> list[int]:
        return [sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")) for gm in self.graphs]

    def targets(self) -> list[str]:
        """Every op the graphs call, by name, for checks that look inside the graphs."""
        return [str(n.target) for gm in self.graphs for n in gm.graph.nodes if n.op.startswith("call_")]

    def _record_aot(self, gm, example_inputs):
        from torch._dynamo.backends.debugging import boxed_nop

        self.aot_targets += [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
        return boxed_nop(gm, example_inputs)

    def user_calls(self) -> list[str]:
        """Python functions from outside torch that a graph calls as one opaque node (allow_in_graph)."""
        found = []
        for gm in self.graphs:
            for n in gm.graph.nodes:
                code = getattr(n.target, "__code__", None) if n.op == "call_function" else None
                if code is not None and _is_user_file(code.co_filename):
                    found.append(getattr(n.target, "__qualname__", getattr(n.target, "__name__", str(n.target))))
        return found

    def custom_ops(self) -> list[str]:
        """Operators from a library namespace outside torch's own that the graphs call, e.g. "course::interp"."""
        found = []
        for gm in self.graphs:
            for n in gm.graph.nodes:
                # Dynamo keeps the handle the code called: an overload (``torch.ops.ns.op.default``)
                # or the packet (``torch.ops.ns.op(x)``, the usual spelling, which picks the overload when run).
                if n.op != "call_function":
                    continue
                if isinstance(n.target, torch._ops.OpOverload):
                    qualified = f"{n.target.namespace}::{n.target._opname}"
                elif isinstance(n.target, torch._ops.OpOverloadPacket):
                    qualified = n.target._qualified_op_name
                else:
                    continue
                if qualified.split("::")[0] not in _TORCH_NAMESPACES:
                    found.append(qualified)
        return found


def _call_region(subgraph, identifier, *operands):
    return subgraph(*operands)


def _runnable(gm):
    """``gm`` to run as captured, with each call of a nested compile region (``invoke_subgraph``)
    made a plain call of its subgraph: what the operator computes. Run eagerly, the operator itself
    retraces its subgraph at every call (0.2-0.3 s for sixteen small blocks, against 5 ms), which a
    structure check has no use for. The graph handed to the tally, whose nodes the checks count,
    stays as Dynamo made it."""
    invoke = getattr(torch.ops.higher_order, "invoke_subgraph", None)
    if invoke is None or not any(node.op == "call_function" and node.target is invoke for node in gm.graph.nodes):
        return gm
    import copy

    graph = copy.deepcopy(gm.graph)
    copied = torch.fx.GraphModule(gm, graph)
    for node in graph.nodes:
        if node.op == "call_function" and node.target is invoke:
            node.target = _call_region
        elif node.op == "get_attr" and isinstance(getattr(copied, node.target, None), torch.fx.GraphModule):
            setattr(copied, node.target, _runnable(getattr(copied, node.target)))  # a region inside a region
    copied.recompile()
    return copied


def _break_type(reason: str) -> str:
    """Dynamo's break type (``gb_type``): the first line of a break reason, without a trailing period."""
    text = (reason or "").strip()
    return text.splitlines()[0].rstrip(".").strip() if text else ""



def _recompile_index(compile_id: str) -> int:
    try:
        return int(compile_id.split("/")[1].split("_")[0])
    except (IndexError, ValueError):
        return 0

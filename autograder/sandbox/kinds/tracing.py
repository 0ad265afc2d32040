"""Reference and measure parts of chapters 3 and 4 (decisions: ``autograder.checks.tracing``).

``nonstrict``: the grader traces the learner's helper itself, non-strictly (``make_fx``), the first
time the pipeline calls it, and replays that one graph on every later call (``_TraceOnce``), while
the state a pure function would take as input changes between calls. The master's ``hook(module,
n)`` says how (it rebinds module globals, as a calibration job does). In the reference child the
hook runs against a recorder, so its rebindings travel as plain data and the learner's process
applies the very same values to the learner's module; the master's pipeline also runs eagerly there,
which is what the program means. In the learner's process the pipeline runs twice: once as traced,
and once more with the graph's floating outputs changed, which must change what the pipeline
returns: an output that does not move did not come from the replayed graph.

``ops`` needs only the common measurement.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import types
from dataclasses import dataclass, field

import torch
from torch.fx.experimental.proxy_tensor import make_fx as _make_fx  # bound before any submission runs

from autograder.sandbox.kinds import Prepared, measures, references
from autograder.sandbox.plain import to_plain


@dataclass
class PipelineRun:
    """What one run of a pipeline over the schedule showed, call by call."""

    outputs: list = field(default_factory=list)
    stdout: list = field(default_factory=list)
    arguments: list = field(default_factory=list)  # each call's arguments as they were after the call
    error: str | None = None  # why the run stopped early
    error_call: int = 0
    graph: object = None
    graph_calls: list = field(default_factory=list)  # per call: how many times the traced graph ran
    graph_inputs: list = field(default_factory=list)  # per call (when recorded): the values of the inputs the graph uses
    global_constants: list = field(default_factory=list)  # (when looked for) module globals the graph holds as constants

    def plain(self) -> dict:
        return {"outputs": [to_plain(o) for o in self.outputs], "stdout": [str(s)[-20000:] for s in self.stdout],
                "arguments": [to_plain(a) for a in self.arguments], "error": self.error, "error_call": self.error_call,
                "graph": self.graph is not None, "graph_calls": list(self.graph_calls),
                "graph_inputs": [list(values[:64]) for values in self.graph_inputs],
                "global_constants": list(self.global_constants),
                "ops": [str(node.target)[:200] for node in self.graph.graph.nodes if node.op == "call_function"] if self.graph is not None else []}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:400]


def _perturbed(value):
    """The graph's output changed where a caller cannot miss it: every floating tensor scaled and shifted."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value * 1.25 + 0.5
    if isinstance(value, (list, tuple)):
        return type(value)(_perturbed(item) for item in value)
    return value


class _TraceOnce:
    """Stands in for the helper: traces it non-strictly on the first call, replays the graph after."""

    def __init__(self, function, mode: str, perturb: bool = False, record_inputs: bool = False, on_traced=None):
        self.function, self.mode, self.perturb, self.record_inputs = function, mode, perturb, record_inputs
        self.on_traced = on_traced  # called with the graph right after tracing, while the globals are as the trace saw them
        self.graph = None
        self.used = []  # positions, among the flattened inputs, of the placeholders the graph reads
        self.inputs = []  # per run: the values fed to those placeholders
        self.runs = 0
        self.__name__ = getattr(function, "__name__", "helper")

    def __call__(self, *args, **kwargs):
        bound = inspect.signature(self.function).bind(*args, **kwargs)
        bound.apply_defaults()
        positional, names = list(bound.args), list(bound.kwargs)
        values = positional + [bound.kwargs[name] for name in names]
        if self.graph is None:
            function, count = self.function, len(positional)

            def flat(*flat_values):
                return function(*flat_values[:count], **dict(zip(names, flat_values[count:])))

            try:
                self.graph = _make_fx(flat, tracing_mode=self.mode, _allow_non_fake_inputs=True)(*values)
            except Exception as exc:
                raise _TraceFailed(exc) from exc
            placeholders = [node for node in self.graph.graph.nodes if node.op == "placeholder"]
            self.used = [i for i, node in enumerate(placeholders) if node.users]
            if self.on_traced is not None:
                self.on_traced(self.graph)
        if self.record_inputs:
            leaves = _tree_leaves(values)
            self.inputs.append([to_plain(leaves[i]) for i in self.used[:64] if i < len(leaves)])  # a copy now: a tensor refilled later must not change it
        self.runs += 1
        out = self.graph(*values)
        return _perturbed(out) if self.perturb else out


def _tree_leaves(values) -> list:
    """The leaves of the helper's arguments in the order make_fx makes its placeholders (pytree order)."""
    from torch.utils import _pytree

    return _pytree.tree_leaves(list(values))


def global_constants(graph, module) -> list[str]:
    """Names of the module's globals whose tensors the graph holds as constants (``get_attr``: a tensor
    the traced function read without taking it as an argument). Matched by storage, one level into
    containers and objects, so a view of a global counts as the global."""
    held = set()
    for node in graph.graph.nodes:
        if node.op == "get_attr":
            value = getattr(graph, str(node.target), None)
            if isinstance(value, torch.Tensor):
                held.add(_storage_of(value))
    if not held:
        return []
    names = []
    for name, value in list(vars(module).items()):
        if name.startswith("__"):
            continue
        if isinstance(value, dict):
            inner = list(dict.values(value))
        elif isinstance(value, (list, tuple)):
            inner = list(value)
        elif not isinstance(value, (type, types.ModuleType)) and not callable(value) and isinstance(getattr(value, "__dict__", None), dict):
            inner = list(value.__dict__.values())  # a plain object holding state: one level in
        else:
            inner = []
        for candidate in [value] + inner[:1000]:
            if isinstance(candidate, torch.Tensor) and _storage_of(candidate) in held:
                names.append(name)
                break
    return sorted(set(names))[:20]


def _storage_of(tensor) -> int:
    try:
        return tensor.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001 - a tensor without storage holds nothing a global could share
        return -id(tensor)


class _TraceFailed(Exception):
    def __init__(self, cause: BaseException):
        super().__init__(_first_line(cause))
        self.cause = cause


def run_pipeline(module, entry, calls: list, helper: str | None = None, before_call=None, mode: str = "fake",
                 perturb: bool = False, record_inputs: bool = False, see_arguments=None,
                 find_globals: bool = False) -> PipelineRun:
    """Call ``entry`` on every argument tuple of ``calls``, eagerly, calling ``before_call(number)`` first.

    With ``helper``, the module-level function of that name is traced once and replayed (``_TraceOnce``)
    for the whole run and put back afterwards. The schedule is deep-copied as a whole, so an object
    that several calls share (a queue, a list of pending updates) stays shared, as in the learner's program.
    """
    run = PipelineRun()
    original = module.__dict__.get(helper) if helper else None
    on_traced = (lambda graph: run.global_constants.extend(global_constants(graph, module))) if find_globals else None
    stand_in = _TraceOnce(original, mode, perturb, record_inputs, on_traced) if helper else None
    if helper:
        setattr(module, helper, stand_in)
    try:
        for number, args in enumerate(copy.deepcopy(calls)):
            if before_call is not None:
                before_call(number)
            if see_arguments is not None:
                see_arguments(number, args)
            before = stand_in.runs if stand_in else 0
            seen_inputs = len(stand_in.inputs) if stand_in else 0
            buffer = io.StringIO()
            try:
                with contextlib.redirect_stdout(buffer):
                    output = entry(*args)
            except _TraceFailed as exc:
                run.error, run.error_call = f"tracing `{helper}` failed: {exc}", number + 1
                run.stdout.append(buffer.getvalue())
                break
            except Exception as exc:  # the pipeline, or a graph that cannot be replayed
                run.error, run.error_call = _first_line(exc), number + 1
                run.stdout.append(buffer.getvalue())
                break
            run.outputs.append(to_plain(output))
            run.stdout.append(buffer.getvalue())
            run.arguments.append(to_plain(args))
            run.graph_calls.append((stand_in.runs - before) if stand_in else 0)
            if record_inputs and stand_in:
                run.graph_inputs.append([value for values in stand_in.inputs[seen_inputs:] for value in values])
    finally:
        if helper:
            setattr(module, helper, original)
    run.graph = stand_in.graph if stand_in else None
    return run


class _Recorder:
    """What a master's hook is given in place of a module: it records each rebinding, per call."""

    def __init__(self):
        object.__setattr__(self, "assigned", {})

    def __setattr__(self, name, value):
        self.assigned[name] = value

    def __getattr__(self, name):
        raise AttributeError(f"a nonstrict hook may only rebind module globals (it read `{name}`)")


def _reference_entry(exercise, master):
    return getattr(master, "reference", None) or getattr(master, exercise.entry)


@references("nonstrict")
def nonstrict_reference(spec, ref) -> Prepared:
    """The master's pipeline run eagerly (what the program means), and the hook's rebindings per call."""
    hook = getattr(ref.master, spec.params["hook"]) if spec.params.get("hook") else None
    rebinds = []
    if hook is not None:
        for number in range(len(ref.calls)):
            recorder = _Recorder()
            hook(recorder, number)
            rebinds.append(dict(recorder.assigned))
    reaches = getattr(ref.master, spec.params["reaches"]) if spec.params.get("reaches") else None
    must_reach = []

    def see_arguments(number, args):
        must_reach.append(to_plain(reaches(ref.master, copy.deepcopy(args))))

    run = run_pipeline(ref.master, _reference_entry(ref.exercise, ref.master), ref.calls,
                       before_call=(lambda number: hook(ref.master, number)) if hook is not None else None,
                       see_arguments=see_arguments if reaches is not None else None)
    doc = (getattr(hook, "__doc__", None) or "").strip().splitlines() if hook is not None else []
    judge = {**run.plain(), "hook_doc": doc[0] if doc else ("" if hook is None else "Changes the inputs")}
    if reaches is not None:
        what = (getattr(reaches, "__doc__", None) or "").strip().splitlines()
        judge.update(reaches=must_reach, reaches_doc=what[0] if what else "the value that changes between calls")
    return Prepared(judge=judge, learner={"rebinds": rebinds})


@measures("nonstrict", params=("helper", "mode", "observe", "reaches", "pure"))
def nonstrict_measure(spec, lab) -> dict:
    p = spec.params
    helper, mode = p["helper"], p.get("mode", "fake")
    function = lab.submission.__dict__.get(helper)
    if not callable(function):
        return {"helper_missing": True}
    rebinds = lab.data.get(spec.name, {}).get("rebinds") or []

    def before_call(number):
        for name, value in (rebinds[number] if number < len(rebinds) else {}).items():
            setattr(lab.submission, name, copy.deepcopy(value))

    run = run_pipeline(lab.submission, lab.entry, lab.calls, helper=helper, before_call=before_call if rebinds else None, mode=mode,
                       record_inputs=bool(p.get("reaches")), find_globals=bool(p.get("pure")))
    facts = {"helper_missing": False, **run.plain()}
    try:
        facts["parameters"] = [str(name) for name in inspect.signature(lab.entry).parameters][:20]
    except (TypeError, ValueError):
        facts["parameters"] = []
    if "output" in p.get("observe", ["output"]) and run.error is None and run.graph is not None:
        moved = run_pipeline(lab.submission, lab.entry, lab.calls, helper=helper, before_call=before_call if rebinds else None,
                             mode=mode, perturb=True)
        facts["perturbed"] = {"outputs": moved.plain()["outputs"], "error": moved.error, "error_call": moved.error_call}
    if lab.extra.get("measures_itself") and not lab.extra.get("recorded"):
        m = lab.measurement
        m.calls = len(lab.calls)
        m.graphs = 1 if run.graph is not None else 0
        m.ops_per_graph = [len(facts["ops"])] if run.graph is not None else []
        m.compiled_calls = sum(1 for runs in run.graph_calls if runs)
        lab.extra["recorded"] = True
    return facts

"""Reference and measure parts of chapter 2's kinds (decisions: ``autograder.checks.breaks``).

- ``escape_hatch`` and ``no_dodge`` learn which of the file's functions run as opaque graph nodes
  by *identity*: the callables marked with ``allow_in_graph`` while the submission ran (Dynamo's
  registry, compared with its state before), named by where the file binds them, whatever alias
  or wrapper was used; and, for ``no_dodge``, the functions wrapped by ``torch.compiler.disable``;
- ``output`` reports whether ``print`` was made reorderable, so the judge says "reordered" only then;
- ``opcheck`` runs ``torch.library.opcheck`` (taken before any submission code ran) on the
  learner's operator, and also checks the operator the way a normal caller meets it, outside
  opcheck: its inputs after a plain call against what its schema declares it writes, and its
  fake kernel's outputs against the real ones. A kernel that behaves only while it sees opcheck on
  the stack fails the plain checks.
"""

from __future__ import annotations

import copy
import types

import torch

from autograder.sandbox.kinds import Prepared, measures, references

_OPCHECK = torch.library.opcheck  # bound before any submission code runs


def _named_objects(module) -> list[tuple[str, object]]:
    """(name, object) for what the file binds at module level, in its classes, and under wrappers."""
    found: list[tuple[str, object]] = []
    for name, value in list(module.__dict__.items()):
        if name.startswith("__"):
            continue
        found.append((name, value))
        if isinstance(value, type):
            for attribute, member in list(type.__dict__["__dict__"].__get__(value).items()):
                if not attribute.startswith("__") or attribute in ("__call__", "forward"):
                    found.append((f"{name}.{attribute}", member))
        inner = value
        for _ in range(4):  # functools.wraps chains: the decorated function under its decorators
            inner = getattr(inner, "__wrapped__", None) if isinstance(inner, types.FunctionType) else None
            if inner is None:
                break
            found.append((name, inner))
    return found


def opaque_functions(lab) -> list[str]:
    """Names of the file's functions that a graph would call as one opaque node (allow_in_graph), by identity."""
    from autograder.sandbox import probe

    marked = probe.allowed_in_graph_ids() - lab.allowed_before
    if not marked:
        return []
    names = sorted({name for name, value in _named_objects(lab.submission) if id(value) in marked})
    return names or ["a function of your file"]


@measures("escape_hatch")
def escape_hatch_measure(spec, lab) -> dict:
    return {"opaque": opaque_functions(lab)}


@measures("output", params=("stream",))
def output_measure(spec, lab) -> dict:
    from autograder.sandbox import probe

    facts = {"print_reorderable": probe.print_is_reorderable()}
    if facts["print_reorderable"] and spec.params.get("stream", "stdout") == "stdout" and lab.measurement.error is None:
        facts["eager_stdout"] = _eager_stdout(lab)
    return facts


def _eager_stdout(lab) -> list[str]:
    """What the submission's own code prints at each call when it runs eagerly, in a forked copy of
    this process (whatever the calls change stays there): the judge tells a line the learner's code
    never prints from one torch dropped when it compiled it."""
    from autograder.sandbox import probe
    from autograder.sandbox.probe.forked import in_forked_child

    def work(state) -> dict:
        made, driver, _ = lab.build(lab.submission)
        printed = []
        for args in copy.deepcopy(lab.calls):
            with probe.captured_output() as seen:
                driver(made, *args) if driver is not None else made(*args)
            printed.append(str(seen["stdout"])[-4000:])
        return {"printed": printed}

    report = in_forked_child(work, timeout=60)
    printed = report.get("printed")
    return [str(text) for text in printed] if isinstance(printed, list) else []


@measures("no_dodge", params=("forbid",))
def no_dodge_measure(spec, lab) -> dict:
    from autograder.sandbox import probe

    # Dynamo adds its own disabled helpers to the module (__compiled_fn_*, __resume_at_*): dunder names are its.
    disabled = sorted({name.split(".")[0] for name, value in _named_objects(lab.submission) if probe.is_disabled(value)})
    return {"disabled": disabled, "opaque": opaque_functions(lab)}


# -- opcheck ----------------------------------------------------------------------------------------

@references("opcheck")
def opcheck_reference(spec, ref) -> Prepared:
    samples = getattr(ref.master, spec.params.get("samples", "op_samples"))(torch.Generator().manual_seed(0))
    return Prepared(learner={"samples": [tuple(sample) for sample in samples]})


def _operator(qualname: str):
    namespace, _, name = qualname.partition("::")
    packet = getattr(getattr(torch.ops, namespace), name, None) if hasattr(torch.ops, namespace) else None
    try:
        return packet.default if packet is not None else None
    except AttributeError:
        return None


def _tensors(value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def _declared_writes(overload) -> set[str]:
    """The arguments the operator's schema says it writes to (mutates_args, or all of them for "unknown")."""
    return {a.name for a in overload._schema.arguments if a.alias_info is not None and a.alias_info.is_write}


def _plain_call_problem(overload, sample, written: set | None = None) -> str | None:
    """Call the operator as any caller does and compare with its schema: an argument it writes to but
    does not declare; a fake kernel whose outputs differ in shape, dtype or device from the real ones.
    The names of the arguments this call changed are added to ``written``.

    The real kernel runs on a thread of its own, called directly by the standard library's thread
    pool: the only frames above it are the pool's and torch's dispatch, none of the grader's, so a
    kernel that looks at the stack cannot tell this call from any other caller's."""
    from concurrent.futures import ThreadPoolExecutor

    from torch._subclasses.fake_tensor import FakeTensorMode

    before = copy.deepcopy(sample)
    args = copy.deepcopy(sample)
    with ThreadPoolExecutor(max_workers=1) as pool:
        real = pool.submit(overload, *args).result()
    schema = overload._schema
    for index, (old, new) in enumerate(zip(before, args)):
        if isinstance(old, torch.Tensor) and not torch.equal(old, new):
            argument = schema.arguments[index] if index < len(schema.arguments) else None
            if written is not None and argument is not None:
                written.add(argument.name)
            writes = argument is not None and argument.alias_info is not None and argument.alias_info.is_write
            if not writes:
                name = argument.name if argument is not None else f"number {index + 1}"
                return (f"called directly, the operator wrote to its argument `{name}`, which its schema does not declare "
                        "as mutated (mutates_args)")
    copies = copy.deepcopy(sample)
    mode = FakeTensorMode()
    fake_args = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in copies]
    with mode:
        fake = overload(*fake_args)
    for number, (r, f) in enumerate(zip(_tensors(real), _tensors(fake)), start=1):
        if tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype or r.device.type != f.device.type:
            return (f"its fake kernel describes output {number} as {tuple(f.shape)} {f.dtype}, but the real kernel returns "
                    f"{tuple(r.shape)} {r.dtype}")
    if len(_tensors(real)) != len(_tensors(fake)):
        return f"its fake kernel returns {len(_tensors(fake))} tensor(s), the real kernel {len(_tensors(real))}"
    return None


@measures("opcheck", params=("op",))
def operator_measure(spec, lab) -> dict:
    qualname = spec.params["op"]
    overload = _operator(qualname)
    if overload is None:
        return {"registered": False}
    samples = lab.data.get(spec.name, {}).get("samples") or []
    for number, args in enumerate(samples, start=1):
        try:
            _OPCHECK(overload, copy.deepcopy(args))
        except Exception as exc:  # noqa: BLE001 - OpCheckError, or whatever the learner's kernel raised
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return {"registered": True, "samples": len(samples), "failed": {"sample": number, "opcheck": text[:600]}}
    written: set[str] = set()
    for number, args in enumerate(samples, start=1):  # the same tests, by a plain call the kernel cannot tell from use
        try:
            problem = _plain_call_problem(overload, args, written)
        except Exception as exc:  # noqa: BLE001 - whatever the learner's kernels raise
            problem = f"calling it raised {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
        if problem:
            return {"registered": True, "samples": len(samples), "failed": {"sample": number, "direct": problem}}
    # The converse promise: an argument declared as written that no sample's call changed (say
    # mutates_args="unknown" on a pure kernel). opcheck accepts it; the compiler then has to assume
    # the write, and copies or orders around it for nothing. A write that happens only on some inputs
    # counts once any sample shows it.
    unwritten = sorted(_declared_writes(overload) - written)
    return {"registered": True, "samples": len(samples), "failed": None, "unwritten": unwritten[:20]}

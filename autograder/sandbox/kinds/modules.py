"""Reference and measure parts of the kinds about what a learner's function builds or chooses
(decisions: ``autograder.checks.modules``): a model compiled in place, its checkpoint, and a
resume from old and new checkpoints (``same_module``, ``checkpoint``, ``resume``), the recompile limit in effect (``limit_in_effect``), and a
bisection run with the learner's test function (``bisect``)."""

from __future__ import annotations

import os

from autograder.sandbox.kinds import Prepared, measures, references
from autograder.sandbox.plain import to_plain


@references("same_module")
def same_module_reference(spec, ref) -> Prepared:
    import torch

    shape = [int(n) for n in spec.params.get("input_shape", [4, 8])]
    return Prepared(learner={"x": torch.randn(*shape, generator=torch.Generator().manual_seed(1))})


@references("checkpoint")
def checkpoint_reference(spec, ref) -> Prepared:
    """A plain model of the master's class, built as the learner's is (seed 0), then moved by shifts drawn
    from the grading's seed, which the measure applies to the learner's model after ``prepare``: its
    state and its output. A checkpoint can hold these weights only if it was written from that model
    (a fresh model built with the same seed holds the unshifted ones)."""
    import torch

    shape = [int(n) for n in spec.params.get("input_shape", [4, 8])]
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    torch.manual_seed(0)
    plain = getattr(ref.master, spec.params.get("model", "Net"))()
    draw = torch.Generator().manual_seed(ref.seed)
    shifts = [torch.randn(p.shape, generator=draw) / 4 for p in plain.parameters()]
    with torch.no_grad():
        for parameter, shift in zip(plain.parameters(), shifts):
            parameter.add_(shift)
        out = plain(x)
    return Prepared(judge={"state": to_plain(dict(plain.state_dict())), "output": to_plain(out)},
                    learner={"x": x, "shifts": shifts})


def _prepared(spec, lab):
    """The learner's prepare() on a fresh model of the file's class, with a counting backend."""
    import torch

    from autograder.sandbox import probe

    p = spec.params
    torch.manual_seed(0)
    model_class = lab.submission.__dict__.get(p.get("model", "Net"))
    prepare = lab.submission.__dict__.get(p.get("prepare", "prepare"))
    if model_class is None or prepare is None:
        return None
    model = model_class()
    tally = probe.GraphTally()
    prepared = prepare(model, backend=tally)
    return model_class, model, prepared, tally


@measures("same_module", params=("model", "prepare"))
def same_module_measure(spec, lab) -> dict:
    built = _prepared(spec, lab)
    if built is None:
        return {"missing": True}
    model_class, model, prepared, tally = built
    prepared(lab.data[spec.name]["x"])
    return {"missing": False, "same_class": type(prepared) is model_class, "same_object": prepared is model,
            "type": type.__dict__["__name__"].__get__(type(prepared)), "ran_compiled": tally.runs > 0, "graphs": len(tally.graphs)}


@measures("checkpoint", params=("model", "prepare", "save"))
def checkpoint_measure(spec, lab) -> dict:
    import torch

    built = _prepared(spec, lab)
    if built is None:
        return {"missing": True}
    _, model, prepared, tally = built
    data = lab.data[spec.name]
    with torch.no_grad():  # as training would, move the weights: the checkpoint must hold the moved ones
        for parameter, shift in zip(model.parameters(), data["shifts"], strict=True):
            parameter.add_(shift)
    out = prepared(data["x"])
    if not tally.runs:
        return {"missing": False, "ran_compiled": False}
    path = os.path.join(lab.scratch, "checkpoint.pt")
    lab.submission.__dict__[spec.params.get("save", "save_checkpoint")](prepared, path)
    saved = torch.load(path, weights_only=True)
    return {"missing": False, "ran_compiled": True, "output": to_plain(out),
            "saved": to_plain(dict(saved)) if isinstance(saved, dict) else {"__object__": type(saved).__name__}}


# The checkpoints a training folder may hold: written from the model itself, or from the wrapper
# torch.compile(model) returns (the reference child asks torch for that wrapper's names).
CHECKPOINT_ORIGINS = ("the wrapper torch.compile(model) returns", "the model itself")


@references("resume")
def resume_reference(spec, ref) -> Prepared:
    """One checkpoint of each origin, holding weights drawn from the grading's seed (a fresh model
    built with the learner's seed holds others), and what a plain model holding them computes."""
    import torch

    shape = [int(n) for n in spec.params.get("input_shape", [4, 8])]
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
    model_class = getattr(ref.master, spec.params.get("model", "Net"))
    draw = torch.Generator().manual_seed(ref.seed + 1)
    checkpoints, outputs = [], []
    for origin in CHECKPOINT_ORIGINS:
        plain = model_class()
        with torch.no_grad():
            for parameter in plain.parameters():
                parameter.copy_(torch.randn(parameter.shape, generator=draw) / 2)
            outputs.append(to_plain(plain(x)))
        holder = torch.compile(plain, backend="eager") if origin == CHECKPOINT_ORIGINS[0] else plain
        checkpoints.append({key: value.detach().clone() for key, value in holder.state_dict().items()})
    return Prepared(judge={"outputs": outputs, "keys": [list(c)[:2] for c in checkpoints],
                           "origins": list(CHECKPOINT_ORIGINS)},
                    learner={"x": x, "checkpoints": checkpoints})


@measures("resume", params=("model", "prepare", "resume"))
def resume_measure(spec, lab) -> dict:
    """For each checkpoint: a fresh model through the learner's ``prepare`` and ``resume``, then one call."""
    import torch

    data = lab.data[spec.name]
    resume = lab.submission.__dict__.get(spec.params.get("resume", "resume"))
    if not callable(resume):
        return {"missing": True}
    results = []
    for checkpoint in data["checkpoints"]:
        built = _prepared(spec, lab)
        if built is None:
            return {"missing": True}
        _, _, prepared, tally = built
        try:
            resume(prepared, dict(checkpoint))
            with torch.no_grad():
                out = prepared(data["x"])
        except Exception as exc:  # noqa: BLE001 - the learner's resume may raise; that is the finding
            results.append({"raised": f"{type(exc).__name__}: {' '.join(str(exc).split())[:600]}"})  # one line
            continue
        results.append({"output": to_plain(out), "ran_compiled": tally.runs > 0})
    return {"missing": False, "results": results}


@measures("limit_in_effect")
def limit_in_effect_measure(spec, lab) -> dict:
    from autograder.sandbox import probe

    chosen = lab.submission.__dict__.get("COMPILE_OPTIONS")
    per_function = dict.get(chosen, "recompile_limit") if isinstance(chosen, dict) else None
    return {"per_function": to_plain(per_function), "config": to_plain(probe.recompile_limit())}


def _bisection(found) -> dict | None:
    if found is None:
        return None
    return {"backend": to_plain(found.backend), "subsystem": to_plain(found.subsystem), "bisect_number": to_plain(found.bisect_number),
            "debug_info": to_plain(str(found.debug_info or ""))[:4000]}


@measures("bisect", params=("function", "control"))
def bisect_measure(spec, lab) -> dict:
    """The learner's test function driving ``CompilerBisector``; with ``control`` (the namespace of the
    planted operators), a second bisection with their decompositions taken out, where nothing is wrong."""
    from autograder.sandbox import probe

    learner_fn = lab.submission.__dict__.get(spec.params.get("function", "test_fn"))
    if not callable(learner_fn):
        return {"missing": True}
    try:
        found = probe.bisect(learner_fn)
    except Exception as exc:  # noqa: BLE001 - the learner's test function may raise
        return {"missing": False, "raised": f"{type(exc).__name__}: {str(exc)[:300]}"}
    facts = {"missing": False, "result": _bisection(found)}
    if spec.params.get("control") and found is not None:
        try:
            control = probe.control_bisect(learner_fn, spec.params["control"], last_backend=found.backend)
        except Exception as exc:  # noqa: BLE001 - raising where nothing is wrong is an answer too
            facts["control_raised"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        else:
            if isinstance(control, str):
                facts["control_unavailable"] = control
            else:
                facts["control"] = _bisection(control)
    return facts

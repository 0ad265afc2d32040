"""The reference child: the grader's own copy of the exercise, in a process of its own that exits
before any learner code starts.

Forked by the judge, it imports the master (the only process of a grading that does), draws the
schedule of calls from the grading's seed, runs the reference on it (outputs and what it printed),
and runs each check kind's ``reference`` part (truths of prediction questions, eager runs of a
pipeline, inputs of a probe). It sends two frames back, both plain data: ``learner`` (the calls
and the probes' inputs, which the judge passes on to the learner child unread) and ``judge``
(everything else, which only the judge sees), then exits.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox import channel
from autograder.sandbox.files import materialize, remove


@dataclass
class ReferenceRun:
    """What a kind's ``reference`` part may use: the master module, the exercise, the schedule, the
    seed, ``truths`` (``kept.TruthCache``: a measured truth kept for later gradings), ``reference``
    (the master's entry as the schedule calls it: through its driver, the factory's product) and
    ``costly`` (whether this grading may time: a timing kind prepares nothing when it will not)."""

    master: object
    exercise: object
    calls: list
    seed: int
    truths: object = None
    reference: object = None
    costly: bool | str = True


def load_master(path: str):
    """Import the master as the module ``autograder_reference`` (only ever in this process)."""
    spec = importlib.util.spec_from_file_location("autograder_reference", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["autograder_reference"] = module
    spec.loader.exec_module(module)
    return module


def main(job: dict, out_fd: int) -> None:
    """The reference child's body (never returns)."""
    try:
        learner, judge = compute(job)
        channel.send(out_fd, "learner", channel.encode(learner))
        channel.send(out_fd, "judge", channel.encode(judge))
    except BaseException as exc:  # noqa: BLE001 - the judge reports it as the grader's failure
        message = f"{type(exc).__name__}: {exc}"[:2000]
        try:
            channel.send(out_fd, "failed", channel.encode({"message": message, "traceback": traceback.format_exc()[-4000:]}))
        except Exception:  # noqa: BLE001
            pass
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def reference_of(master, exercise, seed: int):
    """The master's entry as the schedule calls it, run eagerly: its ``reference`` function when it
    has one, else the entry (the factory's product, made under ``seed``), through the master's driver."""
    import torch

    reference = getattr(master, "reference", None) or getattr(master, exercise.entry)
    if exercise.factory and not hasattr(master, "reference"):
        torch.manual_seed(seed)
        reference = reference()
    if exercise.driver:  # the master's own driver around its eager entry is the reference
        reference = (lambda entry, drive: lambda *args: drive(entry, *args))(reference, getattr(master, exercise.driver))
    return reference


def compute(job: dict) -> tuple[dict, dict]:
    import torch

    from autograder.format.exercise import parse_master
    from autograder.sandbox import probe
    from autograder.sandbox.kinds import REFERENCES
    from autograder.sandbox.kinds import all as _all_kinds  # noqa: F401 - registers every reference part
    from autograder.sandbox.plain import name_file_functions, to_plain

    exercise = parse_master(Path(job["master"]))
    seed = int(job["seed"])
    if job.get("caches"):
        # The master's compiles (a truth measured with Inductor) in a root-only folder: compiled
        # reference code left in the learner's scratch folder would show the solution.
        from autograder.sandbox import identity

        os.makedirs(job["caches"], 0o700, exist_ok=True)
        identity.compile_caches_in(job["caches"])
        probe.private_compile_caches()
    if job.get("scratch"):
        os.chdir(job["scratch"])  # files the schedule writes (inputs the learner's code reads) go where the learner runs
    probe.clean_state()
    torch.manual_seed(seed)
    master = load_master(job["master"])
    calls = master.calls(torch.Generator().manual_seed(seed))
    # What the learner gets: before any reference run could change it, the file's functions by name.
    pristine = name_file_functions(copy.deepcopy(calls), master)
    reference = reference_of(master, exercise, seed)
    capture_output = any(spec.kind == "output" for spec in exercise.checks)
    expected, expected_output, written = [], [], set()
    for args in calls:
        with (probe.captured_output() if capture_output else contextlib.nullcontext({})) as seen:
            expected.append(to_plain(reference(*materialize(copy.deepcopy(args), written))))
        expected_output.append({"stdout": str(seen.get("stdout", "")), "logs": [str(line) for line in seen.get("logs", [])]})
    remove(written)  # the learner's child writes them again, as its own, call by call
    from autograder.engine.kept import open_cache

    truths = open_cache(bool(job.get("truth_cache")), exercise, job["master"])
    run = ReferenceRun(master=master, exercise=exercise, calls=calls, seed=seed, truths=truths, reference=reference,
                       costly=job.get("costly", True))
    for_learner, for_judge = {}, {}
    for spec in exercise.checks:
        part = REFERENCES.get(spec.kind)
        if part is None:
            continue
        probe.clean_state()
        prepared = part(spec, run)
        for_learner[spec.name], for_judge[spec.name] = prepared.learner, prepared.judge
    return ({"calls": pristine, "checks": for_learner},
            {"calls": len(calls), "expected": expected, "expected_output": expected_output, "checks": for_judge,
             "truths_kept": [truths.hits, truths.misses]})

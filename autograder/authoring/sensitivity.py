"""Does an exercise's reference answer depend on its inputs? (``dev check``, tests/test_sensitivity.py)

A ``correct`` check compares the learner's answers with the reference's. It can only catch a wrong
answer the reference would not also give: a 96-layer ReLU tower whose signal dies out answers the
same constant for every request, and a fix that computes a float64 request in float32, or answers
from the wrong batch, passed as "right" there. The probe: run the master's reference eagerly on
its schedule, then on the same schedule with every floating tensor nudged by up to 3% and every
integer tensor's values rotated by one place, and count the answers that change. An exercise with a
``correct`` check whose answers never change is reported.

The masters run in a child process (``python -m autograder.authoring.sensitivity ID...``): they are
the course's own code, but they register operators and set process-wide state that must not leak
into the process that asks.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def nudged(calls, gen):
    """``calls`` with every tensor in it changed a little: floats by up to 3% (``perturbed``, the speed
    check's fresh inputs), integers rotated by one place (token ids, indices)."""
    from autograder.sandbox.kinds.core import perturbed

    return _rotated_integers(perturbed(calls, gen))


def _rotated_integers(value):
    import torch

    if isinstance(value, torch.Tensor):
        if not value.is_floating_point() and value.dtype != torch.bool and value.numel() > 1:
            return value.flatten().roll(1).view_as(value).clone()
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_rotated_integers(item) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_rotated_integers(item) for item in value)
    if isinstance(value, dict):
        return {key: _rotated_integers(item) for key, item in value.items()}
    return value


def _answers(exercise, master, calls, seed: int) -> list:
    from autograder.engine.reference import reference_of
    from autograder.sandbox.files import materialize
    from autograder.sandbox.plain import to_plain

    reference = reference_of(master, exercise, seed)
    return [to_plain(reference(*materialize(copy.deepcopy(args)))) for args in calls]


def changed_answers(exercise, seed: int = 1) -> tuple[int, int]:
    """(answers that changed when the inputs were nudged, answers) for one exercise, in this process."""
    import torch

    from autograder.checks.core import compare
    from autograder.engine.reference import load_master

    torch.manual_seed(seed)
    master = load_master(str(exercise.master))
    calls = master.calls(torch.Generator().manual_seed(seed))
    plain = _answers(exercise, master, calls, seed)
    torch.manual_seed(seed)
    moved = _answers(exercise, master, nudged(calls, torch.Generator().manual_seed(seed + 7)), seed)
    return sum(1 for before, after in zip(plain, moved) if compare(after, before, None, None) is not None), len(plain)


def insensitive(ids: list[str], timeout: float = 600) -> dict[str, str]:
    """Problems by exercise id, for the exercises of ``ids`` that have a ``correct`` check and whose
    reference answers do not change with their inputs (or whose probe failed)."""
    if not ids:
        return {}
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([sys.executable, "-m", "autograder.authoring.sensitivity", *ids], cwd=scratch,
                              capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    problems = {}
    for line in done.stdout.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if row.get("error"):
            problems[row["id"]] = f"its reference could not be probed for input sensitivity: {row['error']}"
        elif row["changed"] == 0:
            problems[row["id"]] = (f"none of the reference's {row['calls']} answers changes when the schedule's inputs are "
                                   "nudged (floats by up to 3%, integers rotated): its `correct` check cannot tell a wrong "
                                   "answer from a right one. Make every answer depend on its request (say, a residual "
                                   "model instead of a tower whose signal dies out)")
    if done.returncode and not problems:
        problems["-"] = f"the input-sensitivity probe failed: {done.stderr.strip().splitlines()[-1:] or done.returncode}"
    return problems


def main(ids: list[str]) -> None:
    from autograder.format.exercise import discover

    exercises = {e.id: e for e in discover()}
    for exercise_id in ids:
        exercise = exercises[exercise_id]
        if not any(check.kind == "correct" for check in exercise.checks):
            continue
        try:
            changed, calls = changed_answers(exercise)
            print(json.dumps({"id": exercise_id, "changed": changed, "calls": calls}), flush=True)
        except Exception as exc:  # noqa: BLE001 - reported as the exercise's problem
            print(json.dumps({"id": exercise_id, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""``grade()``: the one call every front end (CLI, pytest plugin, notebook, nbgrader) goes through."""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from pathlib import Path

from autograder.format import exercise as exercise_format
from autograder.format.loader import load_submission
from autograder.format.result import ERROR, FAILED, CheckResult, Result, settle
from autograder.engine.runner import run_child
from autograder.format.policy import check as check_policy


# The defences in front of the sandbox, on by default: the static policy (in this process, before
# any child starts) and the audit hook (in the child). A test that proves a deeper layer on its own
# (the sandbox, the integrity watch) switches the outer ones off, here or for a whole process with
# AUTOGRADER_DEFENCES_OFF=policy,audit (the grader's environment: a submission cannot reach either).
DEFENCES_SWITCH = "AUTOGRADER_DEFENCES_OFF"
DEFENCES = {name: name not in os.environ.get(DEFENCES_SWITCH, "").replace(" ", "").split(",") for name in ("policy", "audit")}


def _error(exercise, path: str, message: str, seed=None, output_tail: str = "", **extra) -> Result:
    """A grade for a submission that could not be measured: every check failed, with the reason."""
    checks = [CheckResult(c.name, c.kind, FAILED, 0, c.points, "Not run: " + message.split(". ")[0] + ".", c.section)
              for c in exercise.checks]
    return Result(exercise=exercise.id, status=ERROR, score=0, max_score=exercise.max_score, checks=checks,
                  measurements={}, message=message, submission=path, seed=seed, lesson=exercise.rel(exercise.lesson),
                  output_tail=output_tail, **extra)


def grade(exercise_id: str, path: str | os.PathLike | None = None, *, seed: int | None = None,
          timeout: float | None = None, warm: bool | None = None, costly: bool | str = True) -> Result:
    """Grade ``path`` (default: the learner's working copy in ``exercises/``) as exercise ``exercise_id``.

    ``warm=True`` runs the child forked from a warm worker that has torch imported already
    (about 0.5 s instead of 3 s; see zygote.py); the default is cold unless the environment
    variable AUTOGRADER_WARM is 1. ``costly=False`` skips timing checks (reported as skipped), for
    structure-only runs such as the cheat corpus; ``costly="always"`` runs them even when the
    structure fails (benchmarks/cost_verdicts.py, to see a starter's timing).

    Raises KeyError for an unknown exercise and FileNotFoundError for a missing file; every other
    outcome, including a crash, a hang or a syntax error in the submission, is a Result.
    """
    exercise = exercise_format.load(exercise_id)
    target = Path(path) if path is not None else exercise.starter
    if not os.path.lexists(target) or target.is_dir():  # a link or a special file is the loader's to refuse, with a message
        raise FileNotFoundError(str(target))
    shown = str(path) if path is not None else exercise.rel(exercise.starter)
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    started = time.perf_counter()

    loaded = load_submission(target)  # before resolving: a symbolic link is refused, never followed
    target = target.resolve()
    if loaded.source is None:
        return _error(exercise, shown, loaded.problem, seed)
    findings = check_policy(loaded.source, exercise) if DEFENCES["policy"] else []
    if findings:  # nothing the policy refuses is run at all
        result = _error(exercise, shown, "The grader did not run your file: " + "; ".join(str(f) for f in findings) + ".", seed)
        result.extra["scan"] = [str(f) for f in findings]
        _void(result, result.message)
        result.duration_s = round(time.perf_counter() - started, 3)
        return result
    with tempfile.TemporaryDirectory(prefix="autograder-sub-") as holder:
        if loaded.kind == "ipynb":  # the child imports Python; give it the notebook's code cells
            target = Path(holder) / f"{exercise.id}.py"
            target.write_text(loaded.source, encoding="utf-8")
        result = _run(exercise, target, shown, seed, timeout, warm, costly)
    result.duration_s = round(time.perf_counter() - started, 3)
    return result


def _void(result: Result, message: str) -> None:
    """Fail a grade whose run cannot be trusted: every score becomes 0."""
    for check in result.checks:
        check.score = 0
    result.score = 0
    result.status = FAILED
    result.message = message


def _run(exercise, target: Path, shown: str, seed: int, timeout, warm, costly) -> Result:
    limit = timeout if timeout is not None else exercise.timeout
    job = {"root": str(exercise_format.ROOT), "master": str(exercise.master), "submission": str(target), "seed": seed,
           "costly": costly, "audit": DEFENCES["audit"]}
    if warm is None:
        warm = os.environ.get("AUTOGRADER_WARM") == "1"
    if warm:
        from autograder.engine.zygote import shared_runner

        run = shared_runner().run(job, limit)
    else:
        run = run_child(job, limit)
    payload = run.payload
    sandbox = (payload or {}).get("sandbox")
    if run.timed_out:
        result = _error(exercise, shown, f"Grading stopped after {limit:.0f} s. Does your code loop forever, or wait for input? "
                        "Run the file yourself to see where it hangs.", seed, run.output_tail)
    elif payload is None:
        how = f"exit status {run.returncode}" if run.returncode is not None else "its worker was killed with it"
        result = _error(exercise, shown, f"The grading process died ({how}) before it could report. "
                        "Your code may crash Python, exit the process, or use too much memory; run the file yourself to see.",
                        seed, run.output_tail)
    elif not payload.get("ok"):
        result = _error(exercise, shown, payload.get("message", "The grader could not run your file."), seed, run.output_tail,
                        torch=payload.get("torch", ""), device=payload.get("device", ""))
    else:
        result = Result(exercise=exercise.id, status=FAILED, score=0, max_score=exercise.max_score,
                        checks=[CheckResult(**c) for c in payload["checks"]], measurements=payload["measurements"],
                        submission=shown, torch=payload["torch"], device=payload["device"], seed=seed,
                        lesson=exercise.rel(exercise.lesson), output_tail=run.output_tail)
        settle(result)
        violations = payload.get("violations") or []
        if violations:
            result.extra["violations"] = violations
            _void(result, "Integrity: " + "; ".join(violations) + ". Fix the code itself instead.")
        elif not result.passed:
            first = result.failed_checks()[0]
            result.message = first.message
        else:
            result.message = f"Passed: {result.score}/{result.max_score}."
    if sandbox:
        result.extra["sandbox"] = sandbox  # what confined the child: limits, network, the user it ran as
    return result

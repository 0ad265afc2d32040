"""``grade()``: the one call every front end (CLI, pytest plugin, notebook, nbgrader) goes through.

It reads the submission once (``format.loader``), refuses a coding cookie other than UTF-8, runs
the static policy on that text, and hands the same text to the judge (``engine/judge.py``), which
sends it on to the learner's process: what runs is exactly what was read and scanned. A grading
the machine stopped (``cause: "machine"``) is retried once, and reported as the grader's problem.
"""

from __future__ import annotations

import importlib.util
import os
import re
import secrets
import sys
import time
from pathlib import Path

from autograder.engine.runner import run_child
from autograder.format import exercise as exercise_format
from autograder.format.loader import load_submission
from autograder.format.result import ERROR, FAILED, CheckResult, Result, settle

# The defences in front of the sandbox, on by default: the static policy (in this process, before
# any child starts) and the audit hook (in the learner child). A test that proves a deeper layer on
# its own (the sandbox, the integrity watch) switches the outer ones off, here or for a whole process
# with AUTOGRADER_DEFENCES_OFF=policy,audit (the grader's environment: a submission cannot reach either).
DEFENCES_SWITCH = "AUTOGRADER_DEFENCES_OFF"
DEFENCES = {name: name not in os.environ.get(DEFENCES_SWITCH, "").replace(" ", "").split(",") for name in ("policy", "audit")}

# PEP 263: a coding declaration on line 1 or 2.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UTF8_NAMES = {"utf-8", "utf8", "utf_8", "u8", "utf", "cp65001", "utf-8-sig", "utf_8_sig"}


def _error(exercise, path: str, message: str, seed=None, output_tail: str = "", **extra) -> Result:
    """A grade for a submission that could not be measured: every check failed, with the reason."""
    checks = [CheckResult(c.name, c.kind, FAILED, 0, c.points, "Not run: " + message.split(". ")[0] + ".", c.section)
              for c in exercise.checks]
    return Result(exercise=exercise.id, status=ERROR, score=0, max_score=exercise.max_score, checks=checks,
                  measurements={}, message=message, submission=path, seed=seed, lesson=exercise.rel(exercise.lesson),
                  output_tail=output_tail, **extra)


def coding_problem(text: str) -> str | None:
    """Why the file's PEP 263 coding declaration is refused (any encoding but UTF-8), or None."""
    for number, line in enumerate(text.encode("utf-8").splitlines()[:2], start=1):
        match = _CODING.match(line)
        if match:
            name = match[1].decode("ascii", "replace").lower()
            if name not in _UTF8_NAMES:
                return (f"Line {number} of your file declares the encoding {name!r}. The grader reads every file as UTF-8: "
                        "remove the coding line, or make it `# -*- coding: utf-8 -*-`, then check again.")
            return None
        if not line.strip().startswith(b"#") and line.strip():
            return None  # a declaration only counts on the first two lines, above any code
    return None


def link_problem(target: Path) -> str | None:
    """Why a submission path is refused: a symbolic link, or a file that resolves outside the folder it
    was submitted in (a link to the reference solution would be read by a grader that may read it)."""
    if os.path.islink(target):
        return (f"Your submission {target.name} is a symbolic link (to {os.readlink(target)}), not a file. Submit the file itself, "
                "then check again.")
    if Path(target).resolve().parent != Path(target).parent.resolve():
        return f"Your submission {target.name} resolves outside the folder it was submitted in. Submit the file itself."
    return None


def static_findings(source: str, exercise) -> list:
    """The static policy's findings on ``source`` (``format.policy.check``): each has a line, a rule
    and a message for the learner."""
    from autograder.format.policy import check

    return list(check(source, exercise))


def environment_problem() -> str | None:
    """Why this interpreter cannot grade at all (no torch), or None: never the learner's file."""
    if importlib.util.find_spec("torch") is None:
        return (f"This Python ({sys.executable}) has no torch, so it cannot grade anything: your file was not looked at. "
                "Run `./course check ID`, or `.venv/bin/python -m autograder ...`, which use the course's environment.")
    return None


def grade(exercise_id: str, path: str | os.PathLike | None = None, *, seed: int | None = None,
          timeout: float | None = None, warm: bool | None = None, costly: bool | str = True) -> Result:
    """Grade ``path`` (default: the learner's working copy in ``exercises/``) as exercise ``exercise_id``.

    ``warm=True`` runs the judge forked from a warm worker that has torch imported already
    (about 0.2 s instead of 3 s; see zygote.py); the default is cold unless the environment
    variable AUTOGRADER_WARM is 1. ``costly=False`` skips timing checks (reported as skipped), for
    structure-only runs such as the cheat corpus; ``costly="always"`` runs them even when the
    structure fails (benchmarks/cost_verdicts.py, to see a starter's timing).

    Raises KeyError for an unknown exercise and FileNotFoundError for a missing file; every other
    outcome, including a crash, a hang or a syntax error in the submission, is a Result. A Result
    whose ``extra["stage"]`` is ``"environment"`` says this interpreter cannot grade at all.
    """
    exercise = exercise_format.load(exercise_id)
    return grade_exercise(exercise, path, seed=seed, timeout=timeout, warm=warm, costly=costly)


def grade_exercise(exercise, path=None, *, seed=None, timeout=None, warm=None, costly=True) -> Result:
    """``grade()`` for an already parsed exercise (any master path, e.g. a test's own)."""
    target = Path(path) if path is not None else exercise.starter
    if not os.path.lexists(target) or target.is_dir():  # a link or a special file is the loader's to refuse, with a message
        raise FileNotFoundError(str(target))
    shown = str(path) if path is not None else exercise.rel(exercise.starter)
    seed_given = seed is not None  # a seed the caller chose may come again: its reference run is kept
    seed = secrets.randbelow(2**31) if seed is None else int(seed)
    started = time.perf_counter()
    problem = environment_problem()
    if problem:
        result = _error(exercise, shown, problem, seed)
        result.extra["stage"] = "environment"
        return result

    linked = link_problem(target)
    if linked:
        result = _error(exercise, shown, linked, seed)
        result.extra["stage"] = "load"
        return result
    loaded = load_submission(target)
    if loaded.source is None:
        result = _error(exercise, shown, loaded.problem, seed)
        result.extra["stage"] = "load"
        return result
    cookie = coding_problem(loaded.source)
    if cookie:
        result = _error(exercise, shown, cookie, seed)
        result.extra["stage"] = "load"
        return result
    findings = static_findings(loaded.source, exercise) if DEFENCES["policy"] else []
    if findings:  # nothing the policy refuses is run at all
        result = _error(exercise, shown, "The grader did not run your file: " + "; ".join(str(f) for f in findings) + ".", seed)
        result.extra.update({"scan": [str(f) for f in findings], "stage": "policy"})
        _void(result, result.message)
        result.duration_s = round(time.perf_counter() - started, 3)
        return result
    job = {"master": str(exercise.master), "seed": seed, "seed_given": seed_given, "costly": costly, "source": loaded.source,
           "filename": str(target.resolve()), "audit": DEFENCES["audit"]}
    result = _run(exercise, job, shown, seed, timeout, warm)
    if result.extra.get("cause") == "machine":  # stopped from outside, not by the learner's code: once more
        first = result.message
        result = _run(exercise, job, shown, seed, timeout, warm)
        result.extra.update({"attempts": 2, "first_attempt": first})
        if result.extra.get("cause") == "machine":
            result.message += " (The grader retried once: it was stopped both times.)"
    result.duration_s = round(time.perf_counter() - started, 3)
    return result


def _void(result: Result, message: str) -> None:
    """Fail a grade whose run cannot be trusted: every score becomes 0."""
    for check in result.checks:
        check.score = 0
    result.score = 0
    result.status = FAILED
    result.message = message


def _run(exercise, job: dict, shown: str, seed: int, timeout, warm) -> Result:
    limit = timeout if timeout is not None else exercise.timeout
    if warm is None:
        warm = os.environ.get("AUTOGRADER_WARM") == "1"
    if warm:
        from autograder.engine.zygote import shared_runner

        run = shared_runner().run(job, limit)
    else:
        run = run_child(job, limit)
    verdict = run.payload
    if run.timed_out:
        result = _error(exercise, shown, f"The grader itself did not finish within {limit:.0f} s plus its margin: a fault of the "
                        "grader or a machine under heavy load, not of your file. Check again.", seed)
        result.extra.update({"cause": "machine", "stage": "machine"})
        return result
    if verdict is None:
        how = f"exit status {run.returncode}" if run.returncode is not None else "its worker was killed with it"
        result = _error(exercise, shown, f"The grading was stopped from outside ({how}) before it could report. Check again; "
                        "if it keeps happening, the machine may be short of memory.", seed)
        result.extra.update({"cause": "machine", "stage": "machine", "grader_output": run.output_tail[-2000:]})
        return result
    extra = {"sandbox": verdict.get("sandbox") or []}
    if verdict.get("phases_s"):
        extra["phases_s"] = verdict["phases_s"]
    if isinstance(verdict.get("grading_uid"), int):
        extra["grading_uid"] = verdict["grading_uid"]
    if isinstance(verdict.get("truths"), dict):
        extra["truths"] = verdict["truths"]
    if verdict.get("reference_kept") is True:
        extra["reference_kept"] = True
    if not verdict.get("ok"):
        result = _error(exercise, shown, verdict.get("message") or "The grader could not run your file.", seed,
                        verdict.get("output_tail", ""), torch=verdict.get("torch", ""), device=verdict.get("device", ""))
        cause = verdict.get("cause", "")
        # The learner-facing report names no fix of the file for the grader's or the machine's stages.
        stage = cause if cause in ("machine", "grader") else verdict.get("stage", "")
        result.extra.update({**extra, "stage": stage, "cause": cause})
        if verdict.get("cause") == "grader" and verdict.get("traceback"):
            result.extra["traceback"] = verdict["traceback"]
        return result
    result = Result(exercise=exercise.id, status=FAILED, score=0, max_score=exercise.max_score,
                    checks=[CheckResult(**c) for c in verdict["checks"]], measurements=verdict["measurements"],
                    submission=shown, torch=verdict.get("torch", ""), device=verdict.get("device", ""), seed=seed,
                    lesson=exercise.rel(exercise.lesson), output_tail=verdict.get("output_tail", ""), extra=extra)
    settle(result)
    violations = verdict.get("violations") or []
    if violations:
        result.extra["violations"] = violations
        _void(result, "Integrity: " + "; ".join(violations) + ". Fix the code itself instead.")
    elif not result.passed and not result.message:
        result.message = result.failed_checks()[0].message
    elif result.passed:
        result.message = f"Passed: {result.score}/{result.max_score}."
    return result

"""What a learner may see of a grade in a classroom: hidden checks left out, grader paths scrubbed.

The nbgrader feedback, the notebook's own check cell and Gradescope's student view all show a
``Result`` through ``learner_view`` and ``render``, so a learner sees the same messages wherever
they are graded. A check is hidden when its master says ``hidden = true`` or when the course build
names it (``--hide ID:CHECK``); a hidden check still counts toward the score, but its name and
message never reach the learner. No torch, no nbgrader: plain data in, plain text out.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from autograder.format.exercise import ROOT
from autograder.format.result import ERROR, FAILED, PASSED, SKIPPED, Result

HIDDEN_FAILED = ("Every check shown here passed, but a check that is not shown failed. "
                 "Try your fix on other inputs, shapes and edge cases.")
HIDDEN_NOTE = "The score also counts checks that are not shown here."
_INTEGRITY = ("violations", "scan")  # Result.extra keys: what the grader caught the submission doing
_MARKS = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP"}
_PACKAGE = str(Path(__file__).resolve().parents[1])  # the autograder package


def master_hidden(exercise) -> set[str]:
    """Names of the checks the master marks ``hidden = true``."""
    return {check.name for check in exercise.checks if check.hidden}


def parse_hide(items, exercises) -> dict[str, list[str]]:
    """``["ID:CHECK", ...]`` from the command line -> {exercise id: sorted check names}; validated."""
    by_id = {e.id: e for e in exercises}
    hidden: dict[str, set[str]] = {e.id: master_hidden(e) for e in exercises}
    for item in items or []:
        exercise_id, _, check = item.partition(":")
        if exercise_id not in by_id:
            raise ValueError(f"--hide {item}: {exercise_id!r} is not one of the exercises built: {', '.join(sorted(by_id))}")
        names = [c.name for c in by_id[exercise_id].checks]
        if check not in names:
            raise ValueError(f"--hide {item}: exercise {exercise_id} has no check {check!r}; its checks: {', '.join(names)}")
        hidden[exercise_id].add(check)
    return {key: sorted(value) for key, value in hidden.items()}


def rewrite_paths(text: str, path: str | None, label: str) -> str:
    """Replace a submission's (temporary) path in a message with what the learner knows it as."""
    if not text or not path:
        return text
    forms = [str(path)]
    try:
        forms.append(str(Path(path).resolve()))
    except OSError:
        pass
    for marker in ("/exercises/", "/solutions/"):  # how the engine shortens paths in its messages
        for form in list(forms):
            if marker in form:
                forms.append(marker.strip("/") + "/" + form.split(marker, 1)[1])
    # One pass over every form, longest first: replacing form by form would find the short form
    # ("exercises/...") again inside a label that contains it and double the folder (issue 20).
    pattern = re.compile("(" + "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True)) + r")(?::(\d+))?")
    return pattern.sub(lambda m: f"{label}, line {m.group(2)}," if m.group(2) else label, text)


def scrub_output(text: str) -> str:
    """Drop lines of the submission's output that name the grader's own files (the master, the engine)."""
    solutions = str(ROOT / "solutions")
    keep = [line for line in text.splitlines()
            if solutions not in line and _PACKAGE not in line and "autograder_reference" not in line]
    return "\n".join(keep)


def relabel(result: Result, path: str | None, label: str) -> Result:
    """A copy of ``result`` in which the submission's (temporary) path reads ``label``; nothing dropped."""
    view = copy.deepcopy(result)
    if not path:
        return view
    for check in view.checks:
        check.message = rewrite_paths(check.message, path, label)
    view.message = rewrite_paths(view.message, path, label)
    for key in _INTEGRITY:
        if view.extra.get(key):
            view.extra[key] = [rewrite_paths(v, path, label) for v in view.extra[key]]
    view.output_tail = rewrite_paths(view.output_tail, path, label)
    view.submission = label
    return view


def learner_view(result: Result, hidden=(), path: str | None = None, label: str = "your file") -> Result:
    """A copy of ``result`` fit for the learner: hidden checks removed (their points still in the
    score), the headline recomputed from the visible checks, grader paths scrubbed from the output,
    and, given ``path``, the submission's path shown as ``label``."""
    hidden = set(hidden)
    view = relabel(result, path, label)
    shown = [c for c in view.checks if c.name not in hidden]
    concealed = [c for c in view.checks if c.name in hidden]
    view.checks = shown
    view.extra = {k: v for k, v in view.extra.items() if k in _INTEGRITY}
    if view.status == FAILED and not any(view.extra.get(k) for k in _INTEGRITY):
        failed = [c for c in shown if c.status == FAILED]
        if failed:
            view.message = failed[0].message
        elif any(c.status == FAILED for c in concealed):
            view.message = HIDDEN_FAILED
    view.output_tail = scrub_output(view.output_tail)
    view.extra["hidden_checks"] = len(concealed)
    return view


def render(view: Result, context: str = "") -> str:
    """Plain text of a learner view: the headline, each visible check, what to read next."""
    lines = [f"{view.exercise}: {view.status.upper()}  {view.score}/{view.max_score}" + (f"  ({context})" if context else "")]
    if view.status == ERROR:
        lines.append("  " + view.message)
    else:
        for check in view.checks:
            lines.append(f"  [{_MARKS.get(check.status, check.status)}] {check.name} ({check.score}/{check.max_score}): {check.message}")
        if view.status == FAILED and view.message == HIDDEN_FAILED:
            lines.append("  " + HIDDEN_FAILED)
    for key in _INTEGRITY:
        for finding in view.extra.get(key, []):
            lines.append("  INTEGRITY: " + finding)
    if view.extra.get("hidden_checks"):
        lines.append("  " + HIDDEN_NOTE)
    if view.status == ERROR and view.output_tail.strip():
        lines.append("  Last lines your code printed:")
        lines.extend("    " + line for line in view.output_tail.strip().splitlines()[-12:])
    if view.status != PASSED:
        where = f"Lesson: {view.lesson}. " if view.lesson else ""
        lines.append(f"  {where}Hints, one at a time: hint(\"{view.exercise}\") in a cell.")
    return "\n".join(lines)

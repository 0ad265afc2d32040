"""Checks from inside a lesson notebook: the same out-of-process grading, shown as rich output.

    from autograder import check, hint
    check("breaks_checkpoint")   # grades workspace/exercises/01_dynamo_core/breaks_checkpoint.py as saved

A check cell never raises for the learner's mistakes (an unknown id, a missing file): it shows one
line that says what to do, so Run All goes on. The verdict is HTML (colour, a one-line summary, the
details folded, a diagram of the graphs when a graph check failed) with the plain-text report as
its fallback; a grading that takes seconds shows an elapsed-time line while it runs.
"""

from __future__ import annotations

import html

from autograder.engine.grader import grade
from autograder.format.exercise import discover, load, requirements_block
from autograder.learner import progress, remote, workspace
from autograder.learner.names import unknown_id_message
from autograder.learner.report import render, to_html
from autograder.learner.waiting import ticking, working_text


class Verdict:
    """A Result that a notebook shows as the readable report, not as a dataclass dump."""

    def __init__(self, result):
        self.result = result

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": to_html(self.result), "text/plain": render(self.result, where="notebook")}

    def __repr__(self) -> str:
        return render(self.result, where="notebook")

    @property
    def passed(self) -> bool:
        return self.result.passed


class Note:
    """One line for the learner (an unknown id, a hint): shown once, as the cell's output."""

    def __init__(self, text: str, kind: str = "note"):
        self.text, self.kind = text, kind

    def _repr_mimebundle_(self, include=None, exclude=None):
        colour = "#cf222e" if self.kind == "problem" else "var(--jp-ui-font-color1, #333)"
        body = html.escape(self.text).replace("\n", "<br>")
        return {"text/html": f"<div style='color:{colour};font-size:13px;white-space:normal'>{body}</div>",
                "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


def _unknown(exercise_id: str) -> Note:
    return Note(unknown_id_message(str(exercise_id), [e.id for e in discover()], where="notebook"), "problem")


def _progress_display(exercise):
    """An output line, updated in place while the grading runs (None outside IPython)."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        return None
    if get_ipython() is None:
        return None
    state = {}

    def show(seconds):
        line = HTML(f"<div style='color:var(--jp-ui-font-color2,#666);font-size:12px'>&#x23F3; "
                    f"{html.escape(working_text(exercise, seconds))}</div>")
        if "handle" not in state:
            state["handle"] = display(line, display_id=True)
        else:
            state["handle"].update(line)

    def clear(seconds):
        state["handle"].update(HTML(f"<div style='color:var(--jp-ui-font-color2,#666);font-size:12px'>"
                                    f"checked in {seconds:.0f} s</div>"))

    return ticking(show, clear)


def check(exercise_id: str, path=None, seed: int | None = None):
    """Grade the saved copy (``workspace/exercises/...``, or ``path``) in a fresh process; the cell shows the verdict."""
    if remote.configured():  # classroom mode (issue 20): the course's grading service grades it
        return remote.check(exercise_id, path)
    try:
        exercise = load(exercise_id)
    except KeyError:
        return _unknown(exercise_id)
    target = workspace.ensure_copy(exercise) if path is None else path
    waiting = _progress_display(exercise)
    try:
        if waiting is None:
            result = grade(exercise_id, target, seed=seed, warm=True)
        else:
            with waiting:
                result = grade(exercise_id, target, seed=seed, warm=True)  # the kernel keeps the warm worker
    except FileNotFoundError:
        return Note(f"There is no file {target}: write it, or leave out path= to check your copy of {exercise_id}.", "problem")
    if path is None:
        progress.record_result(exercise.id, result.passed, result.score, result.max_score)
    return Verdict(result)


def hint(exercise_id: str):
    """Show the next hint of the ladder (each call shows one more), once."""
    if remote.configured():  # classroom mode: hints come from the service, which keeps the fix back
        return Note(remote.hint(exercise_id))
    try:
        exercise = load(exercise_id)
    except KeyError:
        return _unknown(exercise_id)
    level = progress.next_hint_level(exercise.id, len(exercise.hints))
    more = " (call hint again for the next one)" if level + 1 < len(exercise.hints) else ""
    text = f"Hint {level + 1}/{len(exercise.hints)} for {exercise.id}{more}: {exercise.hints[level]}"
    if exercise.requirements:  # what the fix must do, from the master's header
        text += "\n\n" + requirements_block([r.text for r in exercise.requirements])
    return Note(text)

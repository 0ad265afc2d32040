"""An id that is not an exercise gets one line with the closest ids, never a traceback or the list."""

from __future__ import annotations

import difflib


def unknown_id_message(exercise_id: str, known: list[str], where: str = "terminal") -> str:
    close = difflib.get_close_matches(exercise_id, known, n=3, cutoff=0.6)
    if not close:  # a fragment of an id: "tolist" for trace_tolist
        close = [k for k in known if exercise_id and exercise_id.lower() in k][:3]
    if close:
        hint = f"did you mean {' or '.join(repr(c) if where == 'notebook' else c for c in close)}?"
    elif where == "notebook":
        hint = "each exercise's heading in the lesson names its id."
    else:
        hint = "`./course list` shows every exercise."
    return f"unknown exercise {exercise_id!r}; {hint}"

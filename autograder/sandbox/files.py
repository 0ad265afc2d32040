"""Files a schedule writes between calls: an input that is a file whose content changes while the
program runs (a calibration file rewritten at the same path), which a fix that caches by path must
not miss. Writing them all before the first call, as a schedule otherwise does, would leave only the
last content for every call.

A master's ``calls(gen)`` puts ``file_at_call(path, text)`` where the entry takes the path; just
before each call, in the reference child and in the learner child alike, ``materialize`` writes
``text`` to ``path`` (a plain file name in the grading's scratch folder, the working folder of both,
never through a link) and hands the call the path. The marker is plain data (a dict), so it crosses to the learner's child
like any input; the schedule comes from the master, never from the submission.
"""

from __future__ import annotations

import os

MARKER = "course_file_at_call"


def _plain_name(path: str) -> str:
    if not path or path in (".", "..") or "/" in path or "\\" in path or "\0" in path:
        raise ValueError(f"a scheduled file must be a plain file name in the scratch folder: {path!r}")
    return str(path)


def file_at_call(path: str, text: str) -> dict:
    """An argument that becomes ``path`` once ``text`` is written there, just before its call."""
    return {MARKER: _plain_name(path), "text": str(text)}


def materialize(value, written: set | None = None):
    """``value`` (a call's arguments) with every ``file_at_call`` marker written and replaced by its
    path; the paths written are added to ``written``."""
    if isinstance(value, dict):
        if MARKER in value and set(value) == {MARKER, "text"}:
            path = _plain_name(value[MARKER])  # checked again: data from a channel
            # Never through a link: in the learner's child the submission could have put one there,
            # to have the grader's own code write where the audit hook would refuse its writes.
            if os.path.islink(path):
                os.remove(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(value["text"])
            if written is not None:
                written.add(path)
            return path
        return {key: materialize(item, written) for key, item in value.items()}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(materialize(item, written) for item in value)
    if isinstance(value, list):
        return [materialize(item, written) for item in value]
    return value


def remove(paths) -> None:
    """Remove the files the reference wrote, so that the learner's child, another user, creates its own."""
    for path in paths:
        try:
            os.remove(path)
        except OSError:
            pass

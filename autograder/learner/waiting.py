"""A check that takes seconds says that it is working: an elapsed-time line while grade() runs.

Timing checks (``speed``, ``compile_time``, ``guard_time``) compile and run the code many times and
take 10-30 s; any other grading that passes a second shows the line too. At a terminal it is one
line rewritten in place; in a notebook, one output updated in place (``notebook.py``); in a pipe
or a log, nothing but a single note up front for an exercise with timing checks.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from autograder.format.exercise import COSTLY_KINDS

SHOW_AFTER_S = 1.0


def timed_checks(exercise) -> list[str]:
    return [check.name for check in exercise.checks if check.kind in COSTLY_KINDS]


def working_text(exercise, seconds: float) -> str:
    timed = timed_checks(exercise)
    why = (f"; its timing check{'s' if len(timed) > 1 else ''} ({', '.join(timed)}) compile and run your code many "
           "times, 10-30 s in all" if timed else "")
    return f"checking {exercise.id}: {seconds:.0f} s{why}"


@contextlib.contextmanager
def ticking(show, clear, every: float = 1.0, after: float = SHOW_AFTER_S):
    """Call ``show(seconds)`` every ``every`` s once ``after`` s have passed, in a thread, until the
    block ends; then ``clear(seconds)`` if anything was shown."""
    done = threading.Event()
    began = time.monotonic()
    shown = []

    def tick():
        if done.wait(after):
            return
        while not done.is_set():
            try:
                show(time.monotonic() - began)
                shown.append(True)
            except Exception:  # a display that went away must never break the grading
                return
            done.wait(every)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=2)
        if shown:
            with contextlib.suppress(Exception):
                clear(time.monotonic() - began)


@contextlib.contextmanager
def terminal_progress(exercise, stream=None):
    """The working line at a terminal (rewritten in place, erased at the end)."""
    stream = stream or sys.stdout
    if not (hasattr(stream, "isatty") and stream.isatty()):
        if timed_checks(exercise):
            print(f"(timing checks: {', '.join(timed_checks(exercise))}; this takes 10-30 s)", file=stream, flush=True)
        yield
        return

    def show(seconds):
        stream.write("\r\033[2m" + working_text(exercise, seconds) + "\033[0m\033[K")
        stream.flush()

    def clear(_seconds):
        stream.write("\r\033[K")
        stream.flush()

    with ticking(show, clear):
        yield

"""``ast.parse`` that is safe in a process whose threads parse at the same time.

On CPython 3.11 the converter from the parser's tree to ``ast`` objects counts its recursion depth
in one counter per interpreter, shared by all threads. When a garbage collection inside that
conversion runs a finalizer (Python code), another thread may run and parse too; the counter then
comes back wrong and ``ast.parse`` raises ``SystemError: AST constructor recursion depth mismatch``
for a sound source. The course grades in threads (nbgrader's autograde, ``grade-batch``, Gradescope,
the grading service), and every grading parses the submission and the exercise master, so all the
course's parsing goes through one lock. Seen as a sound nbgrader submission taken for damaged on a
loaded machine; ``tests/test_syntax.py`` reproduces the race with plain ``ast.parse``.
"""

from __future__ import annotations

import ast
import threading

# Reentrant: a finalizer run by a collection inside a parse may itself parse, in the same thread
# (a nested conversion leaves the counter as it found it).
_LOCK = threading.RLock()


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **options) -> ast.AST:
    with _LOCK:
        return ast.parse(source, filename, mode, **options)

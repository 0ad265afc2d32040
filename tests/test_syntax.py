"""Parsing in threads at once (autograder/format/syntax.py): the course grades in threads, and on
CPython 3.11 two ``ast.parse`` calls that overlap can raise ``SystemError`` for a sound source."""

import ast
import re
import sys
import threading
import time

import pytest

from autograder.format import syntax
from conftest import ROOT

SOURCE = "\n".join(f"def f{i}(a, b):\n    return [x * (a + b) for x in range({i}) if x % 2 == 0 and (x > 1 or x < -1)]"
                   for i in range(100))


class _Cycle:
    """Garbage that only the cyclic collector frees, with a finalizer: a collection inside a parse runs
    Python code there, where another thread may take over."""

    def __init__(self):
        self.me = self

    def __del__(self):
        total = 0
        for i in range(50):
            total += i


def _errors_when_threads_parse(parse, seconds: float, stop_at_first: bool = True) -> list[str]:
    errors: list[str] = []
    until = time.monotonic() + seconds

    def work():
        while time.monotonic() < until and not (stop_at_first and errors):
            for _ in range(20):
                _Cycle()
            try:
                tree = parse(SOURCE)
            except SystemError as exc:
                errors.append(str(exc))
                continue
            assert len(tree.body) == 100

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return errors


def test_threads_parsing_at_once_never_fail_through_the_course_parser():
    raced = _errors_when_threads_parse(ast.parse, 6.0)
    if not raced:
        pytest.skip(f"ast.parse did not race in 6 s on Python {sys.version.split()[0]}: nothing to show here")
    assert "recursion depth mismatch" in raced[0]
    assert _errors_when_threads_parse(syntax.parse, 2.0, stop_at_first=False) == []


def test_the_course_parses_only_through_the_locked_parser():
    # Any direct call in the course's own code (the grader, its checks, the classroom bridges) would
    # bring the race back for whatever thread pool reaches it.
    direct = re.compile(r"\bast\.parse\(|PyCF_ONLY_AST")
    offenders = [f"{path.relative_to(ROOT)}:{number}" for path in (ROOT / "autograder").rglob("*.py")
                 if path.name != "syntax.py"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if direct.search(line)]
    assert offenders == []

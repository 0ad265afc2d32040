"""The learner's code as this process runs it: compiled from the exact text the grader read (never
read again from disk), its lines in linecache, every code object it defines (for probes that find a
function by identity), and the audit hook installed just before the first line of it runs."""

from __future__ import annotations

import types


def cache_lines(path: str, text: str) -> None:
    """The file's text in linecache, so tracebacks and ``inspect`` never open the file."""
    import linecache

    linecache.cache[path] = (len(text), None, text.splitlines(keepends=True), path)


def code_objects(code) -> list:
    """``code`` and every code object nested in it: all the functions the file defines, by identity."""
    found, todo = [], [code]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += [const for const in current.co_consts if isinstance(const, types.CodeType)]
    return found


def install_audit(filename: str, scratch: str) -> str | None:
    """The PEP 578 audit hook of ``autograder.sandbox.audit``, where that module exists; what to record."""
    try:
        from autograder.sandbox import audit
    except ImportError:
        return None
    audit.install({filename}, scratch)
    return "audit hook"


def audit_refusals() -> list[str]:
    """What the audit hook refused learner code so far (each a sentence for the learner)."""
    try:
        from autograder.sandbox import audit
    except ImportError:
        return []
    return audit.refusals()

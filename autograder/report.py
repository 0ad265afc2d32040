"""Render a Result for a person at a terminal or in a notebook."""

from __future__ import annotations

import os
import sys

from .result import ERROR, FAILED, PASSED, SKIPPED, Result

_MARKS = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP"}
_COLOURS = {PASSED: "32", FAILED: "31", SKIPPED: "33", ERROR: "31"}


def _colour(text: str, status: str, enabled: bool) -> str:
    return f"\033[{_COLOURS[status]}m{text}\033[0m" if enabled else text


def use_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ


def measurements_line(result: Result) -> str:
    m = result.measurements
    if not m:
        return ""
    parts = [f"graphs {m.get('graphs', '?')}", f"graph breaks {m.get('graph_breaks', '?')}",
             f"recompiles {m.get('recompiles', '?')}", f"compiled calls {m.get('compiled_calls', '?')}/{m.get('calls', '?')}"]
    for name, timed in (m.get("timings") or {}).items():
        parts.append(f"{name} {timed['ratio']:.2f}x")
    return "Measured: " + ", ".join(parts)


def render(result: Result, colour: bool = False, show_output: bool = True) -> str:
    lines = []
    headline = f"{result.exercise}: {result.status.upper()}  {result.score}/{result.max_score}"
    lines.append(_colour(headline, result.status, colour))
    if result.status == ERROR:
        lines.append("  " + result.message)
    for check in result.checks:
        if result.status == ERROR:
            break
        mark = _colour(_MARKS[check.status], check.status, colour)
        lines.append(f"  [{mark}] {check.name} ({check.score}/{check.max_score}): {check.message}")
    for violation in result.extra.get("violations", []):
        lines.append("  " + _colour("INTEGRITY", FAILED, colour) + ": " + violation)
    summary = measurements_line(result)
    if summary:
        lines.append("  " + summary)
    if show_output and result.status == ERROR and result.output_tail.strip():
        lines.append("  Last lines your code printed:")
        lines.extend("    " + line for line in result.output_tail.strip().splitlines()[-12:])
    if not result.passed:
        lines.append(f"  Next: fix {result.submission}, then run `python -m autograder check {result.exercise}`;"
                     f" `python -m autograder hint {result.exercise}` gives a hint.")
    return "\n".join(lines)

"""Render a Result for a person: plain text (notebooks, logs, pipes) or rich colour at a terminal."""

from __future__ import annotations

import os
import sys

from autograder.format.build import lesson_sections
from autograder.format.explain import explain
from autograder.format.result import ERROR, FAILED, PASSED, SKIPPED, Result, short_path

_MARKS = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP"}
_STYLES = {PASSED: "green", FAILED: "red", SKIPPED: "yellow", ERROR: "red"}


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


def _section_ref(section: str) -> str:
    lesson = lesson_sections().get(section)
    return f"lesson section {section} ({lesson})" if lesson else f"lesson section {section}"


def break_explanation(result: Result) -> list[str]:
    """Why the graph broke, for a result whose measurements show a break: the line, PyTorch's
    explanation and hints, and the course section that teaches the fix."""
    m = result.measurements or {}
    error = m.get("error") or {}
    if error.get("kind") == "graph_break":
        reason, site = error.get("message", ""), error
    elif m.get("break_sites"):
        reason, site = m["break_sites"][0]["reason"], m["break_sites"][0]
    else:
        return []
    if not result.failed_checks():
        return []
    why = explain(reason)
    lines = [f"Why the graph broke: {why.gb_type}"]
    if site.get("file"):
        short = short_path(site["file"])
        code = (site.get("code") or "").split("  #")[0].strip()
        lines.append(f"  at {short}:{site.get('line')}" + (f"  `{code}`" if code else ""))
    if why.explanation:
        lines.append(f"  PyTorch: {why.explanation}")
    for hint in why.hints[:2]:
        lines.append(f"  PyTorch hint: {hint}")
    lines.append(f"  Course: {why.advice} See {_section_ref(why.section)}.")
    if why.url:
        lines.append(f"  More: {why.url}")
    return lines


def unmet_requirements(result: Result) -> list[str]:
    """The task's requirements (the master's header) whose checks failed in this result; only the
    checks present in ``result`` count, so a report with hidden checks removed reveals nothing."""
    failed = {c.name for c in result.checks if c.status == FAILED}
    if not failed or result.status == ERROR:
        return []
    try:
        from autograder.format.exercise import load

        requirements = load(result.exercise).requirements
    except (KeyError, ValueError):
        return []
    return [r.text for r in requirements if failed & set(r.checks)]


def render(result: Result, colour: bool = False, show_output: bool = True) -> str:
    """The report as plain text (``colour`` adds ANSI colours for terminals without rich)."""

    def paint(text: str, status: str) -> str:
        codes = {"green": "32", "red": "31", "yellow": "33"}
        return f"\033[{codes[_STYLES[status]]}m{text}\033[0m" if colour else text

    lines = [paint(f"{result.exercise}: {result.status.upper()}  {result.score}/{result.max_score}", result.status)]
    if result.status == ERROR:
        lines.append("  " + result.message)
    else:
        for check in result.checks:
            lines.append(f"  [{paint(_MARKS[check.status], check.status)}] {check.name} ({check.score}/{check.max_score}): {check.message}")
    lines.extend("  Not met yet: " + text for text in unmet_requirements(result))
    for violation in result.extra.get("violations", []):
        lines.append("  " + paint("INTEGRITY", FAILED) + ": " + violation)
    summary = measurements_line(result)
    if summary:
        lines.append("  " + summary)
    lines.extend("  " + line for line in break_explanation(result))
    if show_output and result.status == ERROR and result.output_tail.strip():
        lines.append("  Last lines your code printed:")
        lines.extend("    " + line for line in result.output_tail.strip().splitlines()[-12:])
    if not result.passed:
        lines.append(f"  Next: fix {result.submission}, then run `python -m autograder check {result.exercise}`;"
                     f" `python -m autograder hint {result.exercise}` gives a hint.")
    return "\n".join(lines)


def print_result(result: Result, stream=None) -> None:
    """Print a report: a rich panel at a colour terminal, plain text anywhere else."""
    stream = stream or sys.stdout
    if not use_colour(stream):
        print(render(result), file=stream)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=stream)
    style = _STYLES[result.status]
    console.print(Text(f"{result.exercise}: {result.status.upper()}  {result.score}/{result.max_score}", style=f"bold {style}"))
    if result.status == ERROR:
        console.print(Text("  " + result.message))
    else:
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        table.add_column("check")
        table.add_column("points", justify="right")
        table.add_column("result")
        for check in result.checks:
            table.add_row(Text(f"{_MARKS[check.status]} {check.name}", style=_STYLES[check.status]),
                          f"{check.score}/{check.max_score}", check.message)
        console.print(table)
    for text in unmet_requirements(result):
        console.print(Text("Not met yet: " + text, style="bold"))
    for violation in result.extra.get("violations", []):
        console.print(Text("INTEGRITY: " + violation, style="bold red"))
    summary = measurements_line(result)
    if summary:
        console.print(Text(summary, style="dim"))
    for line in break_explanation(result):
        console.print(Text(line, style="cyan" if line.startswith("  Course") else ""))
    if result.status == ERROR and result.output_tail.strip():
        console.print(Text("Last lines your code printed:", style="dim"))
        for line in result.output_tail.strip().splitlines()[-12:]:
            console.print(Text("  " + line, style="dim"))
    if not result.passed:
        console.print(f"Next: fix {result.submission}, then [bold]python -m autograder check {result.exercise}[/bold]; "
                      f"[bold]python -m autograder hint {result.exercise}[/bold] gives a hint.")

"""Render a Result for a person: the verdict and its cause once, then the checks.

One report, three forms: plain text (pipes, logs, the pytest plugin, the text fallback of the
notebook output), colour at a terminal (rich), and HTML in a notebook (``to_html``: a one-line
summary, the details folded). What goes into it is decided once, in ``build``:

- the cause, said once: a plain Python error first (the code fails without torch.compile: a typo,
  a wrong argument, a shape mismatch; the grader ran the call eagerly to find it), else why the
  graph broke, with PyTorch's explanation and only those of its hints that apply to a learner;
- the lesson pointer: the section that teaches *this exercise's* fix (the failed check's section),
  never a later chapter;
- each check, with the sentences the cause already said left out;
- what to do next, for where the learner is (a terminal or a notebook); nothing about fixing the
  learner's file when the failure is the grader's or the machine's (``stage``).
"""

from __future__ import annotations

import html
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder.format.build import lesson_sections
from autograder.format.explain import explain
from autograder.format.result import ERROR, FAILED, PASSED, SKIPPED, Result, short_path
from autograder.learner import workspace

_MARKS = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP"}
_STYLES = {PASSED: "green", FAILED: "red", SKIPPED: "yellow", ERROR: "red"}
# Failures that are not the learner's: the grader ran under the wrong Python, the machine stopped it.
NOT_THE_LEARNERS = {"environment", "machine", "grader"}
# PyTorch hints written for PyTorch developers or for changing Dynamo itself, not for a learner.
_UNHELPFUL_HINTS = re.compile(
    r"dynamo bug|report (an issue|a bug|it)|file an issue|tracing rules|dont_skip_tracing|TORCHDYNAMO_VERBOSE"
    r"|to `?tolist\(\)`? is an integer|torch\._dynamo\.config|internal stack trace", re.I)
_LESSON_SENTENCE = re.compile(r"^Lesson section [\d.]+ \([^)]*\) teaches this\.?$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")
GRAPH_KINDS = {"graphs", "graph_breaks", "breaks_allowed", "ops", "skipped_frames"}


def use_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ


def stage(result: Result) -> str:
    """Where a grading stopped when it stopped early ("" when it ran): a field or ``extra["stage"]``."""
    return getattr(result, "stage", "") or (result.extra or {}).get("stage", "")


def shown_path(path: str) -> str:
    """The submission as the learner knows it: their copy in workspace/, else as given."""
    if not path:
        return path
    candidate = Path(path)
    return workspace.shown(candidate) if candidate.is_absolute() else path


def _relabel(text: str, result: Result) -> str:
    """Check messages name the file by its tail (``exercises/CH/ID.py``); name the learner's copy,
    and the commands as a learner types them (``./course reset ID``)."""
    text = (text or "").replace("`python -m autograder ", "`./course ")
    if not text or not result.submission:
        return text
    label = shown_path(result.submission)
    tail = short_path(str(result.submission))
    if tail == label:
        return text
    for form in {str(result.submission), tail}:
        text = re.sub(r"(?<![\w/])" + re.escape(form), label, text) if form == tail else text.replace(form, label)
    return text


@dataclass
class Cause:
    """Why the code failed, said once."""
    title: str
    where: str = ""
    pytorch: list[str] = field(default_factory=list)  # PyTorch's explanation and useful hints
    advice: str = ""
    url: str = ""
    repeats: list[str] = field(default_factory=list)  # texts a check message would say again


@dataclass
class Report:
    exercise: str
    status: str
    score: int
    max_score: int
    summary: str
    cause: Cause | None
    lesson: str
    checks: list[tuple[str, str, str, str]]  # (status, name, points, message)
    measured: str
    integrity: list[str]
    output: list[str]
    learners_fault: bool
    submission: str
    message: str = ""
    unmet: list[str] = field(default_factory=list)  # the task's requirements not met yet

    @property
    def headline(self) -> str:
        return f"{self.exercise}: {self.status.upper()}  {self.score}/{self.max_score}"


def _site_text(site: dict, result: Result) -> str:
    if not site.get("file"):
        return ""
    code = (site.get("code") or "").split("  #")[0].strip()
    return f"{_relabel(short_path(site['file']), result)}:{site.get('line')}" + (f"  `{code}`" if code else "")


def _useful_hints(hints: list[str]) -> list[str]:
    kept = []
    for hint in hints:
        if _UNHELPFUL_HINTS.search(hint) or hint in kept:
            continue
        kept.append(hint)
    return kept[:2]


def _chapter(section: str) -> int:
    try:
        return int(section.split(".")[0])
    except ValueError:
        return 0


def exercise_section(result: Result) -> str:
    """The lesson section that teaches this exercise's fix: the first failed check's section."""
    failed = result.failed_checks()
    sections = [c.section for c in failed if c.section] or [c.section for c in result.checks if c.section]
    return sections[0] if sections else ""


def lesson_pointer(result: Result) -> str:
    section = exercise_section(result)
    if not section:
        return f"The lesson: {result.lesson}." if result.lesson else ""
    lesson = lesson_sections().get(section) or result.lesson
    return f"Lesson section {section}" + (f" ({lesson})" if lesson else "") + " teaches the fix."


def find_cause(result: Result) -> Cause | None:
    """The one cause of a failed run: a plain Python error first, else the graph break."""
    if result.passed or result.status == ERROR:
        return None
    m = result.measurements or {}
    error = m.get("error") or {}
    plain = error.get("plain")
    if plain:
        repeats = [error.get("message", "").splitlines()[0]] if error.get("message") else []
        if error.get("gb_type"):
            repeats.append(error["gb_type"])
        return Cause(title=f"Your code fails as plain Python, before torch.compile is involved: {plain['message'].splitlines()[0]}",
                     where=_site_text(plain, result),
                     advice=f"Fix this first; `./course python {shown_path(result.submission)}` runs the file and shows the whole traceback.",
                     repeats=[r for r in repeats if r] + [_site_text(error, result).split("  ")[0]])
    if error.get("kind") == "exception":
        return Cause(title=f"Your code raised {error['message'].splitlines()[0]}", where=_site_text(error, result),
                     repeats=[error["message"].splitlines()[0]])
    if error.get("kind") == "graph_break":
        reason, site = error.get("message", ""), error
    elif m.get("break_sites"):
        reason, site = m["break_sites"][0]["reason"], m["break_sites"][0]
    else:
        return None
    why = explain(reason)
    pytorch = [f"PyTorch: {why.explanation}"] if why.explanation else []
    pytorch += [f"PyTorch's hint: {hint}" for hint in _useful_hints(why.hints)]
    advice = why.advice
    own = exercise_section(result)
    if why.section and why.section != own and _chapter(why.section) <= _chapter(own or why.section):
        advice += f" (Lesson section {why.section} is about this kind of break.)"
    first = reason.splitlines()[0] if reason else why.gb_type
    where = _site_text(site, result)
    return Cause(title=f"Why the graph broke: {why.gb_type}", where=where, pytorch=pytorch, advice=advice, url=why.url,
                 repeats=[first, why.gb_type, where.split("  ")[0]])


# A check that could not measure because the run stopped says so in one of these ways.
_RUN_STOPPED = ("did not return", "No complete run", "Not run:")
STOPPED_AT_CAUSE = "not measured: the run stopped at the error above."


def _without_repeats(message: str, cause: Cause | None) -> str:
    """A check's message without what the cause or the lesson pointer already said."""
    if cause is not None and any(marker in message for marker in _RUN_STOPPED):
        return STOPPED_AT_CAUSE
    sentences = _SENTENCE_END.split(message.strip())
    kept = []
    for sentence in sentences:
        if _LESSON_SENTENCE.match(sentence.strip()):
            continue
        if cause and any(r and r in sentence for r in cause.repeats):
            continue
        kept.append(sentence)
    if not kept:
        return "fails for the reason above."
    return " ".join(kept)


def summary_line(result: Result, cause: Cause | None) -> str:
    """The verdict in one line, after the score."""
    if result.passed:
        return f"all {len(result.checks)} checks passed" if result.checks else "passed"
    if result.status == ERROR:
        return (result.message or "the grading could not run").split(". ")[0].rstrip(".")
    if cause is not None:
        where = cause.where.split("  ")[0]
        line = where.rsplit(":", 1)[-1] if ":" in where else ""
        title = cause.title.split(": ", 1)[-1]
        if cause.title.startswith("Your code fails as plain Python"):
            return f"{title} (line {line}), as plain Python" if line else f"{title}, as plain Python"
        if cause.title.startswith("Why the graph broke"):
            return f"the graph breaks at line {line}: {title}" if line else f"the graph breaks: {title}"
        return f"{title} (line {line})" if line else title
    failed = result.failed_checks()
    if failed:  # the checks' own messages follow: name them here, say them there
        return f"{len(failed)} of {len(result.checks)} checks failed: {', '.join(c.name for c in failed)}"
    return result.message.split(". ")[0]


def measurements_line(result: Result) -> str:
    m = result.measurements
    if not m:
        return ""
    parts = [f"graphs {m.get('graphs', '?')}", f"graph breaks {m.get('graph_breaks', '?')}",
             f"recompiles {m.get('recompiles', '?')}", f"compiled calls {m.get('compiled_calls', '?')}/{m.get('calls', '?')}"]
    for name, timed in (m.get("timings") or {}).items():
        if isinstance(timed, dict) and "ratio" in timed:
            parts.append(f"{name} {timed['ratio']:.2f}x")
    return "Measured: " + ", ".join(parts)


def build(result: Result) -> Report:
    cause = find_cause(result)
    checks = []
    if result.status != ERROR:
        for check in result.checks:
            message = _relabel(check.message, result)
            if check.status == FAILED:
                message = _without_repeats(message, cause)
            checks.append((check.status, check.name, f"{check.score}/{check.max_score}", message))
    integrity = [_relabel(v, result) for v in (result.extra or {}).get("violations", [])]
    output = []
    if result.status == ERROR and result.output_tail.strip():
        output = result.output_tail.strip().splitlines()[-12:]
    return Report(exercise=result.exercise, status=result.status, score=result.score, max_score=result.max_score,
                  summary=summary_line(result, cause), cause=cause,
                  lesson=lesson_pointer(result) if not result.passed and stage(result) not in NOT_THE_LEARNERS else "",
                  checks=checks, measured=measurements_line(result), integrity=integrity, output=output,
                  learners_fault=stage(result) not in NOT_THE_LEARNERS, submission=shown_path(result.submission),
                  message=_relabel(result.message, result), unmet=unmet_requirements(result))


def break_explanation(result: Result, titled: bool = True) -> list[str]:
    """The cause block as lines (empty when nothing broke or failed); ``titled=False`` leaves out
    the title, which the one-line summary already says."""
    cause = find_cause(result)
    if cause is None:
        return []
    lines = [cause.title] if titled else []
    indent = "  " if titled else ""
    if cause.where:
        lines.append(f"{indent}at {cause.where}")
    lines += [indent + text for text in cause.pytorch]
    if cause.advice:
        lines.append(f"{indent}Course: {cause.advice}")
    pointer = lesson_pointer(result)
    if pointer:
        lines.append(f"{indent}{pointer}")
    if cause.url:
        lines.append(f"{indent}More: {cause.url}")
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


def next_step(report: Report, where: str = "terminal") -> str:
    if report.status == PASSED:
        return ""
    if not report.learners_fault:
        return ("Next: run the check again; this was not your code's fault." if stage_is_machine(report)
                else "Next: run the check with the course's own Python, as the message says.")
    if where == "notebook":
        return f"Next: edit {report.submission}, save it, and run this cell again; hint(\"{report.exercise}\") gives a hint."
    return (f"Next: edit {report.submission}, then run `./course check {report.exercise}`; "
            f"`./course hint {report.exercise}` gives a hint.")


def stage_is_machine(report: Report) -> bool:
    return "machine" in report.message.lower() or "retry" in report.message.lower()


def render(result: Result, colour: bool = False, show_output: bool = True, where: str = "terminal") -> str:
    """The report as plain text (``colour`` adds ANSI colours for terminals without rich)."""
    report = build(result)

    def paint(text: str, status: str) -> str:
        codes = {"green": "32", "red": "31", "yellow": "33"}
        return f"\033[{codes[_STYLES[status]]}m{text}\033[0m" if colour else text

    lines = [paint(report.headline, report.status) + f"  {report.summary}"]
    if report.status == ERROR:
        lines.append("  " + report.message)
    lines.extend("  " + line for line in break_explanation(result, titled=False))
    if report.cause is None and report.lesson:
        lines.append("  " + report.lesson)
    for status, name, points, message in report.checks:
        lines.append(f"  [{paint(_MARKS.get(status, status.upper()), status)}] {name} ({points}): {message}")
    lines.extend("  Not met yet: " + text for text in report.unmet)
    for violation in report.integrity:
        lines.append("  " + paint("INTEGRITY", FAILED) + ": " + violation)
    if report.measured:
        lines.append("  " + report.measured)
    if show_output and report.output:
        lines.append("  Last lines your code printed:")
        lines.extend("    " + line for line in report.output)
    step = next_step(report, where)
    if step:
        lines.append("  " + step)
    return "\n".join(lines)


def print_result(result: Result, stream=None) -> None:
    """Print a report: rich colour at a terminal, plain text anywhere else."""
    stream = stream or sys.stdout
    if not use_colour(stream):
        print(render(result), file=stream)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    report = build(result)
    console = Console(file=stream, highlight=False)
    style = _STYLES[report.status]
    head = Text(report.headline, style=f"bold {style}")
    head.append("  " + report.summary, style="bold")
    console.print(head)
    if report.status == ERROR:
        console.print(Text("  " + report.message))
    for line in break_explanation(result, titled=False):
        console.print(Text("  " + line, style="cyan" if line.startswith(("Course", "Lesson")) else ""))
    if report.cause is None and report.lesson:
        console.print(Text("  " + report.lesson, style="cyan"))
    if report.checks:
        table = Table(show_header=False, box=None, padding=(0, 1))
        table.add_column("check", no_wrap=True)
        table.add_column("points", justify="right", no_wrap=True)
        table.add_column("result", overflow="fold")
        for status, name, points, message in report.checks:
            table.add_row(Text(f"{_MARKS.get(status, status.upper())} {name}", style=_STYLES[status]), points, message)
        console.print(table)
    for text in report.unmet:
        console.print(Text("Not met yet: " + text, style="bold"))
    for violation in report.integrity:
        console.print(Text("INTEGRITY: " + violation, style="bold red"))
    if report.measured:
        console.print(Text(report.measured, style="dim"))
    if report.output:
        console.print(Text("Last lines your code printed:", style="dim"))
        for line in report.output:
            console.print(Text("  " + line, style="dim"))
    step = next_step(report)
    if step:
        console.print(Text(step, style="bold"))


# -- HTML, for notebooks ---------------------------------------------------------------------------

_CSS = """
.ag-verdict{font-family:var(--jp-ui-font-family,sans-serif);font-size:13px;line-height:1.45;
  border-left:4px solid var(--ag-colour);padding:4px 10px;margin:2px 0;overflow-wrap:break-word;word-break:normal}
.ag-verdict code{font-family:var(--jp-code-font-family,monospace);font-size:12px;white-space:pre-wrap;
  word-break:normal;overflow-wrap:anywhere}
.ag-passed{--ag-colour:#1a7f37}.ag-failed,.ag-error{--ag-colour:#cf222e}
.ag-badge{background:var(--ag-colour);color:#fff;border-radius:3px;padding:0 6px;font-weight:600}
.ag-verdict details{margin:4px 0}.ag-verdict summary{cursor:pointer;color:var(--jp-ui-font-color1,#333)}
.ag-verdict table{border-collapse:collapse;margin:2px 0}
.ag-verdict td{padding:1px 8px 1px 0;vertical-align:top;text-align:left}
.ag-PASS{color:#1a7f37;font-weight:600}.ag-FAIL{color:#cf222e;font-weight:600}.ag-SKIP{color:#9a6700;font-weight:600}
.ag-dim{color:var(--jp-ui-font-color2,#666)}.ag-next{font-weight:600;margin-top:4px}
"""


def _code_spans(text: str) -> str:
    """Escape ``text`` and show its `backquoted` parts as code."""
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(f"<code>{html.escape(p[1:-1])}</code>" if p.startswith("`") and p.endswith("`") else html.escape(p)
                   for p in parts)


def wants_diagram(result: Result) -> bool:
    """A graph check failed and the code did compile into graphs: show where it split."""
    m = result.measurements or {}
    kinds = {c.kind for c in result.failed_checks()}
    return bool(kinds & GRAPH_KINDS) and m.get("graphs", 0) >= 1 and bool(m.get("graph_breaks", 0) or m.get("graphs", 0) > 1)


def diagram_png(result: Result) -> bytes | None:
    """The graphs of the learner's function, one box each, the break between them (a PNG)."""
    from types import SimpleNamespace

    m = result.measurements or {}
    try:
        import io

        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        from autograder.learner.pictures import graph_diagram
    except ImportError:
        return None
    graphs = m.get("graph_ops") or [[f"{n} op(s)"] for n in m.get("ops_per_graph", [])]
    reasons = []
    for site in m.get("break_sites", []):
        why = explain(site.get("reason", "")).gb_type
        reasons.append(f"line {site['line']}: {why}" if site.get("line") else why)
    tally = SimpleNamespace(graph_ops=graphs, break_reasons=reasons)
    figure = graph_diagram(tally, title=f"{result.exercise}: how your function split into graphs")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    plt.close(figure)
    return buffer.getvalue()


def to_html(result: Result, diagram: bool = True) -> str:
    """The report for a notebook: the verdict in one line, the cause, the details folded."""
    import base64

    report = build(result)
    out = [f"<div class='ag-verdict ag-{report.status}'><style>{_CSS}</style>"]
    out.append(f"<div><span class='ag-badge'>{html.escape(report.status.upper())}</span> "
               f"<b>{html.escape(report.headline)}</b> &nbsp;{_code_spans(report.summary)}</div>")
    if report.status == ERROR:
        out.append(f"<div>{_code_spans(report.message)}</div>")
    cause = report.cause
    if cause is not None:
        if cause.where:
            out.append(f"<div>at {_code_spans(cause.where.replace('  `', ' `'))}</div>")
        if cause.advice:
            out.append(f"<div>{_code_spans(cause.advice)}</div>")
    if report.lesson:
        out.append(f"<div>{_code_spans(report.lesson)}</div>")
    if cause is not None and (cause.pytorch or cause.url):
        more = "".join(f"<div>{_code_spans(text)}</div>" for text in cause.pytorch)
        if cause.url:
            more += f"<div><a href='{html.escape(cause.url)}' target='_blank' rel='noopener'>{html.escape(cause.url)}</a></div>"
        out.append(f"<details><summary>What PyTorch says</summary>{more}</details>")
    if diagram and wants_diagram(result):
        png = diagram_png(result)
        if png:
            data = base64.b64encode(png).decode()
            out.append(f"<details open><summary>Where your function split into graphs</summary>"
                       f"<img alt='graphs of {html.escape(result.exercise)}' src='data:image/png;base64,{data}'></details>")
    if report.checks:
        passed = sum(1 for c in report.checks if c[0] == PASSED)
        rows = "".join(f"<tr><td class='ag-{_MARKS.get(s, s.upper())}'>{_MARKS.get(s, s.upper())}</td><td>{html.escape(n)}</td>"
                       f"<td>{html.escape(p)}</td><td>{_code_spans(msg)}</td></tr>" for s, n, p, msg in report.checks)
        measured = f"<div class='ag-dim'>{html.escape(report.measured)}</div>" if report.measured else ""
        opened = " open" if report.status == FAILED and cause is None else ""
        out.append(f"<details{opened}><summary>Checks: {passed} of {len(report.checks)} passed</summary>"
                   f"<table>{rows}</table>{measured}</details>")
    if report.unmet:
        items = "".join(f"<li>{_code_spans(text)}</li>" for text in report.unmet)
        out.append(f"<div>Not met yet:<ul style='margin:0'>{items}</ul></div>")
    for violation in report.integrity:
        out.append(f"<div class='ag-FAIL'>INTEGRITY: {_code_spans(violation)}</div>")
    if report.output:
        out.append("<details><summary>Last lines your code printed</summary><code>"
                   + html.escape("\n".join(report.output)) + "</code></details>")
    step = next_step(report, "notebook")
    if step:
        out.append(f"<div class='ag-next'>{_code_spans(step)}</div>")
    out.append("</div>")
    return "".join(out)

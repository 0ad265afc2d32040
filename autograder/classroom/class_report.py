"""The class report: one self-contained HTML page with its plots drawn as inline SVG.

    score histogram              how the class's percentages spread (10 % bins)
    exercises that fail most     the share of submissions not passed, with the most common first
                                 failing check of each (where to spend the next lecture)
    per-check failure rate       every check of every exercise, the share of submissions failing it
    flags and missing work       the submissions that need an instructor's look

Only submitted work counts in the failure rates (a missing submission fails no check); the
histogram counts every student of the roster. No plotting library: the page must open anywhere,
offline, and be the same for the same grades.
"""

from __future__ import annotations

import collections
import html

from autograder.classroom.records import MISSING, Entry, StudentRow

_BAR = "#4c72b0"
_BAD = "#c44e52"


def _svg_bars(items: list[tuple[str, float, str]], *, width=640, unit="%", colour=_BAR, label_width=260) -> str:
    """Horizontal bars: (label, value 0..100, note) each."""
    if not items:
        return "<p>Nothing to show.</p>"
    row, top = 22, 8
    height = top + row * len(items) + 8
    span = width - label_width - 120
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" font-family="sans-serif" font-size="12">']
    for i, (label, value, note) in enumerate(items):
        y = top + i * row
        length = max(0.0, min(100.0, value)) / 100 * span
        parts.append(f'<text x="{label_width - 6}" y="{y + 14}" text-anchor="end">{html.escape(label)}</text>')
        parts.append(f'<rect x="{label_width}" y="{y + 3}" width="{length:.1f}" height="{row - 6}" fill="{colour}"/>')
        parts.append(f'<text x="{label_width + length + 4:.1f}" y="{y + 14}">{value:.0f}{unit}'
                     f'{(" " + html.escape(note)) if note else ""}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _svg_histogram(percents: list[float], width=640, height=220) -> str:
    bins = [0] * 10
    for value in percents:
        bins[min(9, int(value // 10))] += 1
    tallest = max(bins) or 1
    left, bottom, top = 40, height - 30, 10
    step = (width - left - 10) / 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" font-family="sans-serif" font-size="12">',
             f'<line x1="{left}" y1="{bottom}" x2="{width - 10}" y2="{bottom}" stroke="#333"/>']
    for i, count in enumerate(bins):
        h = (bottom - top) * count / tallest
        x = left + i * step
        parts.append(f'<rect x="{x + 2:.1f}" y="{bottom - h:.1f}" width="{step - 4:.1f}" height="{h:.1f}" fill="{_BAR}"/>')
        if count:
            parts.append(f'<text x="{x + step / 2:.1f}" y="{bottom - h - 3:.1f}" text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + step / 2:.1f}" y="{bottom + 14}" text-anchor="middle">{i * 10}-{i * 10 + 10 if i < 9 else 100}%</text>')
    parts.append(f'<text x="4" y="{top + 10}">students</text></svg>')
    return "".join(parts)


def exercise_failures(entries: list[Entry]) -> list[dict]:
    """Per exercise: submissions, the share not passed, and the most common first failing check."""
    out = []
    by_exercise: dict[str, list[Entry]] = collections.defaultdict(list)
    for entry in entries:
        if entry.status != MISSING:
            by_exercise[entry.exercise].append(entry)
    for exercise, mine in by_exercise.items():
        failing = [e for e in mine if e.status != "passed"]
        firsts = collections.Counter(e.first_failed or "(could not run)" for e in failing)
        common, count = firsts.most_common(1)[0] if firsts else ("", 0)
        out.append({"exercise": exercise, "submissions": len(mine), "not_passed": len(failing),
                    "rate": round(100 * len(failing) / len(mine), 1), "first_failing": common, "first_failing_count": count})
    return sorted(out, key=lambda row: (-row["rate"], row["exercise"]))


def check_failures(entries: list[Entry]) -> list[dict]:
    counts: dict[tuple[str, str], list[int]] = {}
    for entry in entries:
        if entry.status == MISSING:
            continue
        for check in entry.checks:
            tally = counts.setdefault((entry.exercise, check), [0, 0])
            tally[1] += 1
            tally[0] += check in entry.failed_checks
    rows = [{"exercise": ex, "check": check, "failed": failed, "graded": graded, "rate": round(100 * failed / graded, 1)}
            for (ex, check), (failed, graded) in counts.items()]
    return sorted(rows, key=lambda row: (-row["rate"], row["exercise"], row["check"]))


def render(title: str, rows: list[StudentRow], entries: list[Entry], notes: list[str] = ()) -> str:
    percents = [row.percent for row in rows]
    exercises = exercise_failures(entries)
    checks = check_failures(entries)
    missing = [row.student.id for row in rows if not row.submitted]
    flagged = [(row.student.id, flag) for row in rows for flag in row.flags if flag != "no submission"]
    mean = sum(percents) / len(percents) if percents else 0.0
    median = sorted(percents)[len(percents) // 2] if percents else 0.0
    out = ["<!doctype html><html><head><meta charset='utf-8'>", f"<title>{html.escape(title)}</title>",
           "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}</style>",
           "</head><body>", f"<h1>{html.escape(title)}</h1>",
           f"<p>{len(rows)} student(s), {len(rows) - len(missing)} with a submission; mean {mean:.1f} %, median {median:.1f} %.</p>"]
    out += [f"<p>{html.escape(note)}</p>" for note in notes]
    out += ["<h2>Score histogram</h2>", _svg_histogram(percents)]
    out += ["<h2>Exercises that fail most</h2>",
            _svg_bars([(e["exercise"], e["rate"], f"of {e['submissions']}; first failing: {e['first_failing']} ({e['first_failing_count']})"
                        if e["first_failing"] else f"of {e['submissions']}") for e in exercises], colour=_BAD, width=900)]
    out += ["<table><tr><th>exercise</th><th>submissions</th><th>not passed</th><th>most common first failing check</th></tr>"]
    for e in exercises:
        first = f"{e['first_failing']} ({e['first_failing_count']})" if e["first_failing"] else ""
        out.append(f"<tr><td>{html.escape(e['exercise'])}</td><td>{e['submissions']}</td>"
                   f"<td>{e['not_passed']} ({e['rate']:g} %)</td><td>{html.escape(first)}</td></tr>")
    out += ["</table>", "<h2>Per-check failure rate</h2>",
            _svg_bars([(f"{c['exercise']}: {c['check']}", c["rate"], f"({c['failed']}/{c['graded']})") for c in checks], width=900, label_width=360)]
    out += ["<h2>Missing work</h2>", f"<p>{html.escape(', '.join(missing)) or 'None: every student submitted.'}</p>",
            "<h2>Flags</h2>"]
    if flagged:
        out += ["<table><tr><th>student</th><th>flag</th></tr>"]
        out += [f"<tr><td>{html.escape(s)}</td><td>{html.escape(f)}</td></tr>" for s, f in flagged]
        out += ["</table>"]
    else:
        out += ["<p>None.</p>"]
    out += ["</body></html>"]
    return "\n".join(out) + "\n"

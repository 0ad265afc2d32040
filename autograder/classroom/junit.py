"""JUnit XML for CI dashboards: one <testsuite> per graded submission, one <testcase> per check.

Points travel as <properties> (``score``, ``max_score`` on each suite and each case), because JUnit
itself has no notion of partial credit. A failed check is a <failure> with the check's message; a
skipped check (a speed check without its device) is <skipped>; a submission that could not be
measured at all (crash, hang, syntax error) gives every case an <error> with the reason.

    python -m autograder grade ID PATH --format junit > report.xml
    python -m autograder grade-batch SUBMISSIONS --junit report.xml
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from autograder.format.result import ERROR, FAILED, SKIPPED, Result


def _properties(parent: ET.Element, values: dict) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in values.items():
        if value is None or value == "":
            continue
        ET.SubElement(props, "property", name=name, value=str(value))


def _clean(text: str) -> str:
    """XML 1.0 cannot carry most control characters; a submission's output may contain them."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 32 else "?" for ch in text or "")


def testsuite(result: Result, name: str | None = None, hidden=()) -> ET.Element:
    """The <testsuite> of one Result. ``hidden`` names checks to mark with a ``hidden`` property."""
    failures = sum(1 for c in result.checks if c.status == FAILED) if result.status != ERROR else 0
    errors = len(result.checks) if result.status == ERROR else 0
    skipped = sum(1 for c in result.checks if c.status == SKIPPED) if result.status != ERROR else 0
    suite = ET.Element("testsuite", name=name or result.exercise, tests=str(len(result.checks)),
                       failures=str(failures), errors=str(errors), skipped=str(skipped),
                       time=f"{result.duration_s:.3f}")
    _properties(suite, {"exercise": result.exercise, "status": result.status, "score": result.score,
                        "max_score": result.max_score, "submission": result.submission, "seed": result.seed,
                        "torch": result.torch, "device": result.device, "message": _clean(result.message)})
    for check in result.checks:
        case = ET.SubElement(suite, "testcase", classname=f"autograder.{name or result.exercise}", name=check.name, time="0")
        _properties(case, {"kind": check.kind, "score": check.score, "max_score": check.max_score,
                           "section": check.section, "hidden": "true" if check.name in hidden else ""})
        if result.status == ERROR:
            error = ET.SubElement(case, "error", message=_clean(result.message), type="not-run")
            error.text = _clean(check.message)
        elif check.status == FAILED:
            failure = ET.SubElement(case, "failure", message=_clean(check.message), type=check.kind)
            failure.text = _clean(check.message)
        elif check.status == SKIPPED:
            ET.SubElement(case, "skipped", message=_clean(check.message))
    if result.output_tail.strip():
        ET.SubElement(suite, "system-out").text = _clean(result.output_tail)
    return suite


def to_junit(results, names=None, hidden=None, suite_name: str = "autograder") -> str:
    """XML text of a <testsuites> document for ``results`` (a list of Result).

    ``names`` optionally gives each suite's name (e.g. ``student/exercise`` in a batch);
    ``hidden`` maps an exercise id to the check names to mark hidden.
    """
    results = list(results)
    names = list(names) if names is not None else [None] * len(results)
    hidden = hidden or {}
    root = ET.Element("testsuites", name=suite_name)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for result, name in zip(results, names):
        suite = testsuite(result, name, hidden.get(result.exercise, ()))
        for key in totals:
            totals[key] += int(suite.get(key))
        root.append(suite)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{sum(r.duration_s for r in results):.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

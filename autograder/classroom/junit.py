"""JUnit XML for CI dashboards: one <testsuite> per graded submission, one <testcase> per check.

Written with junitparser, in the strict form of Ant's JUnit schema that Jenkins, GitLab and the
other dashboards read (tests/test_junit.py validates it with xmlschema against
tests/data/junit-ant-strict.xsd): a bare <testsuites>; each suite with package, id, name,
timestamp, hostname and its counts, then <properties>, the cases, <system-out> and <system-err>.

JUnit has no partial credit, so the points are properties of the suite: ``score`` and
``max_score`` for the submission, and ``check.<name>.score``, ``check.<name>.max_score`` and
``check.<name>.kind`` for each check (``check.<name>.hidden`` marks a hidden one). A failed check
is a <failure> whose message starts with its points; a skipped check (a speed check without its
device) is <skipped>; a submission that could not be measured at all (crash, hang, syntax error)
gives every case an <error> with the reason. The submission's last output is <system-out>.

    python -m autograder grade ID PATH --format junit > report.xml
    python -m autograder grade-batch SUBMISSIONS --junit report.xml
"""

from __future__ import annotations

import datetime
import socket

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite
from junitparser.junitparser import SystemErr, SystemOut

from autograder.format.result import ERROR, FAILED, SKIPPED, Result


def _clean(text) -> str:
    """XML 1.0 cannot carry most control characters; a submission's output may contain them."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 32 else "?" for ch in str(text or ""))


def _token(text: str) -> str:
    return " ".join(_clean(text).split()) or "unnamed"


def _stamp(when: datetime.datetime | None) -> str:
    moment = when or datetime.datetime.now(datetime.timezone.utc)
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def testsuite(result: Result, name: str | None = None, hidden=(), *, number: int = 0, when=None,
              hostname: str | None = None) -> TestSuite:
    """The <testsuite> of one Result. ``hidden`` names checks to mark with a ``hidden`` property."""
    suite_name = _token(name or result.exercise)
    suite = TestSuite(suite_name)
    suite.timestamp = _stamp(when)
    suite.hostname = _token(hostname or socket.gethostname() or "localhost")
    suite._elem.set("package", _token("autograder." + result.exercise))
    suite._elem.set("id", str(number))
    values = {"exercise": result.exercise, "status": result.status, "score": result.score, "max_score": result.max_score,
              "submission": result.submission, "seed": result.seed, "torch": result.torch, "device": result.device,
              "message": _clean(result.message)}
    for check in result.checks:
        values[f"check.{check.name}.score"] = check.score
        values[f"check.{check.name}.max_score"] = check.max_score
        values[f"check.{check.name}.kind"] = check.kind
        if check.name in set(hidden):
            values[f"check.{check.name}.hidden"] = "true"
    for key, value in values.items():
        if value is not None and value != "":
            suite.add_property(key, str(value))
    for check in result.checks:
        case = TestCase(_token(check.name), _token(f"autograder.{suite_name}"), 0.0)
        points = f"{check.score}/{check.max_score} points"
        if result.status == ERROR:
            case.result = [Error(_clean(result.message), "not-run")]
            case.result[0].text = _clean(check.message)
        elif check.status == FAILED:
            case.result = [Failure(_clean(f"({points}) {check.message}"), _token(check.kind))]
            case.result[0].text = _clean(check.message)
        elif check.status == SKIPPED:
            case.result = [Skipped(_clean(check.message))]
        suite.add_testcase(case)
    suite.update_statistics()
    suite.time = round(float(result.duration_s or 0.0), 3)
    suite.append(SystemOut(_clean(result.output_tail)))
    suite.append(SystemErr(""))
    return suite


def to_junit(results, names=None, hidden=None, suite_name: str = "autograder", when=None) -> str:
    """XML text of a <testsuites> document for ``results`` (a list of Result).

    ``names`` optionally gives each suite's name (e.g. ``student/exercise`` in a batch); ``hidden``
    maps an exercise id to the check names to mark hidden. ``suite_name`` is kept for callers; the
    strict schema gives <testsuites> no attributes, so it is not written.
    """
    results = list(results)
    names = list(names) if names is not None else [None] * len(results)
    hidden = hidden or {}
    document = JUnitXml()
    hostname = socket.gethostname() or "localhost"
    for number, (result, name) in enumerate(zip(results, names)):
        document.add_testsuite(testsuite(result, name, hidden.get(result.exercise, ()), number=number, when=when,
                                         hostname=hostname))
    document._elem.attrib.clear()  # add_testsuite does not count; a bare <testsuites> is what the schema allows
    text = document.tostring()
    text = text.decode("utf-8") if isinstance(text, bytes) else text
    if not text.startswith("<?xml"):
        text = '<?xml version="1.0" encoding="UTF-8"?>\n' + text
    return text.rstrip("\n") + "\n"

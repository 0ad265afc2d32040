"""JUnit XML for CI dashboards: a suite per submission, a case per check, points as suite properties,
valid against the strict Ant JUnit schema (tests/data/junit-ant-strict.xsd) and read back by junitparser."""

import json
import xml.etree.ElementTree as ET

import pytest
import xmlschema
from junitparser import JUnitXml

from conftest import ROOT, run_cli

from autograder.classroom.junit import to_junit
from autograder.format.result import CheckResult, Result

SCHEMA = xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit-ant-strict.xsd"))


def props(element):
    return {p.get("name"): p.get("value") for p in element.find("properties")}


def result(status, checks, message="", output=""):
    return Result(exercise="ex", status=status, score=sum(c.score for c in checks), max_score=sum(c.max_score for c in checks),
                  checks=checks, measurements={}, message=message, duration_s=1.5, seed=7, output_tail=output)


PARTIAL = result("failed", [CheckResult("compiles", "compiles", "passed", 2, 2, "ok"),
                            CheckResult("graphs", "graphs", "failed", 0, 1, "2 graphs; expected 1. Break at x.py:3"),
                            CheckResult("speed", "speed", "skipped", 0, 2, "needs cuda")])
CRASHED = result("error", [CheckResult("compiles", "compiles", "failed", 0, 2, "Not run: it died.")],
                 message="The grading process died.", output="Segmentation fault\x07\x00")


def test_the_schema_is_strict_enough_to_fail():
    """The validator must be able to say no: each fault the old hand-written XML had is rejected."""
    good = to_junit([PARTIAL])
    assert SCHEMA.is_valid(good)
    bad = {
        "attributes on <testsuites>": good.replace("<testsuites>", '<testsuites name="autograder" tests="3">'),
        "properties inside a testcase": good.replace('<testcase name="compiles"', '<testcase name="compiles"', 1).replace(
            "</testcase>", "<properties/></testcase>", 1),
        "no timestamp": ET.tostring(_without(good, "timestamp"), encoding="unicode"),
        "no hostname": ET.tostring(_without(good, "hostname"), encoding="unicode"),
    }
    for fault, text in bad.items():
        assert not SCHEMA.is_valid(text), fault


def _without(text, attribute):
    root = ET.fromstring(text)
    del root.find("testsuite").attrib[attribute]
    return root


def test_suites_cases_failures_skips_errors_and_points():
    xml = to_junit([PARTIAL, CRASHED], names=["alice/ex", "bob/ex"], hidden={"ex": ["graphs"]})
    SCHEMA.validate(xml)
    root = ET.fromstring(xml)
    assert root.tag == "testsuites" and root.attrib == {}
    first, second = root.findall("testsuite")
    assert (first.get("tests"), first.get("failures"), first.get("errors"), first.get("skipped")) == ("3", "1", "0", "1")
    assert (second.get("tests"), second.get("errors")) == ("1", "1")
    assert first.get("name") == "alice/ex" and props(first)["score"] == "2" and props(first)["max_score"] == "5"
    assert props(first)["check.compiles.score"] == "2" and props(first)["check.graphs.max_score"] == "1"
    assert props(first)["check.graphs.hidden"] == "true" and "check.compiles.hidden" not in props(first)
    cases = {c.get("name"): c for c in first.findall("testcase")}
    assert cases["compiles"].find("failure") is None
    assert cases["graphs"].find("failure").get("message").startswith("(0/1 points) 2 graphs")
    assert cases["speed"].find("skipped").get("message") == "needs cuda"
    error = second.find("testcase").find("error")
    assert error.get("message") == "The grading process died." and props(second)["status"] == "error"
    assert "Segmentation fault" in second.find("system-out").text


def test_junitparser_reads_it_back():
    parsed = JUnitXml.fromstring(to_junit([PARTIAL, CRASHED], names=["alice/ex", "bob/ex"]))
    suites = list(parsed)
    assert [s.name for s in suites] == ["alice/ex", "bob/ex"]
    assert {p.name: p.value for p in suites[0].properties()}["check.speed.max_score"] == "2"
    outcomes = {case.name: type(case.result[0]).__name__ if case.result else "passed" for case in suites[0]}
    assert outcomes == {"compiles": "passed", "graphs": "Failure", "speed": "Skipped"}


@pytest.mark.parametrize("path,code", [("exercises/01_dynamo_core/breaks_checkpoint.py", 1),
                                       ("solutions/01_dynamo_core/breaks_checkpoint.py", 0)])
def test_grade_format_junit_is_valid(path, code):
    exit_code, out, _ = run_cli("grade", "breaks_checkpoint", path, "--format", "junit", "--seed", "3")
    assert exit_code == code
    SCHEMA.validate(out)
    suite = ET.fromstring(out).find("testsuite")
    assert suite.get("name") == "breaks_checkpoint"
    if code:
        compiles = next(c for c in suite.findall("testcase") if c.get("name") == "compiles")
        assert "torch.save" in compiles.find("failure").get("message") and props(suite)["check.compiles.max_score"] == "2"


def test_grade_format_json():
    code, out, _ = run_cli("grade", "breaks_checkpoint", "solutions/01_dynamo_core/breaks_checkpoint.py", "--format", "json", "--seed", "3")
    assert code == 0 and out.count("\n") == 1 and json.loads(out)["status"] == "passed"

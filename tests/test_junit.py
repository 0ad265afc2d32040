"""JUnit XML for CI dashboards: a suite per submission, a case per check, points as properties."""

import json
import xml.etree.ElementTree as ET

from conftest import run_cli

from autograder.classroom.junit import to_junit
from autograder.format.result import CheckResult, Result


def props(element):
    return {p.get("name"): p.get("value") for p in element.find("properties")}


def result(status, checks, message="", output=""):
    return Result(exercise="ex", status=status, score=sum(c.score for c in checks), max_score=sum(c.max_score for c in checks),
                  checks=checks, measurements={}, message=message, duration_s=1.5, seed=7, output_tail=output)


def test_suites_cases_failures_skips_errors_and_points():
    partial = result("failed", [CheckResult("compiles", "compiles", "passed", 2, 2, "ok"),
                                CheckResult("graphs", "graphs", "failed", 0, 1, "2 graphs; expected 1. Break at x.py:3"),
                                CheckResult("speed", "speed", "skipped", 0, 2, "needs cuda")])
    crashed = result("error", [CheckResult("compiles", "compiles", "failed", 0, 2, "Not run: it died.")],
                     message="The grading process died.", output="Segmentation fault\x07\x00")
    root = ET.fromstring(to_junit([partial, crashed], names=["alice/ex", "bob/ex"], hidden={"ex": ["graphs"]}))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("4", "1", "1", "1")
    first, second = root.findall("testsuite")
    assert first.get("name") == "alice/ex" and props(first)["score"] == "2" and props(first)["max_score"] == "5"
    cases = {c.get("name"): c for c in first.findall("testcase")}
    assert props(cases["compiles"]) ["score"] == "2" and cases["compiles"].find("failure") is None
    assert cases["graphs"].find("failure").get("message").startswith("2 graphs") and props(cases["graphs"])["hidden"] == "true"
    assert cases["speed"].find("skipped").get("message") == "needs cuda"
    error = second.find("testcase").find("error")
    assert error.get("message") == "The grading process died." and props(second)["status"] == "error"
    assert "Segmentation fault" in second.find("system-out").text


def test_grade_format_junit_and_json():
    code, out, _ = run_cli("grade", "breaks_checkpoint", "exercises/01_dynamo_core/breaks_checkpoint.py", "--format", "junit", "--seed", "3")
    assert code == 1
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert suite.get("name") == "breaks_checkpoint" and int(suite.get("failures")) >= 1
    compiles = next(c for c in suite.findall("testcase") if c.get("name") == "compiles")
    assert "torch.save" in compiles.find("failure").get("message") and props(compiles)["max_score"] == "2"
    code, out, _ = run_cli("grade", "breaks_checkpoint", "solutions/01_dynamo_core/breaks_checkpoint.py", "--format", "json", "--seed", "3")
    assert code == 0 and out.count("\n") == 1 and json.loads(out)["status"] == "passed"

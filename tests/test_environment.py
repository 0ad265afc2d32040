"""The one dependency list (pyproject.toml) and its conda wrapper (environment.yml) stay in step."""

import re
import tomllib

from conftest import ROOT


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_torch_is_pinned_to_the_course_version():
    deps = pyproject()["project"]["dependencies"]
    assert "torch==2.13.0" in deps
    assert "nbgrader==0.9.6" in deps
    assert any(d.startswith("jupyterlab>=4") for d in deps)


def test_environment_yml_installs_the_project_instead_of_repeating_the_list():
    text = (ROOT / "environment.yml").read_text()
    pip_lines = re.findall(r"^\s+- (.+)$", text.split("- pip:")[1], flags=re.M)
    assert pip_lines == ["-e ."], "environment.yml must install the project (-e .) and list nothing else"
    python = re.search(r"- python=(\d+\.\d+)", text)[1]
    major, minor = map(int, python.split("."))
    requires = pyproject()["project"]["requires-python"]
    assert requires == ">=3.10" and (major, minor) >= (3, 10)


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "./course test" in ci
    commands = re.findall(r"^\s*(\./course \w+)\s*$", readme, flags=re.M)
    assert commands[:2] == ["./course start", "./course test"], "the README's first two commands"

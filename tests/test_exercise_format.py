"""The master-file format: header, regions, generated starter, and the errors authors see."""

import ast

import pytest

from autograder.format.exercise import ExerciseFormatError, parse_master, split_header, starter_source
from autograder.format.build import syllabus_ids
from conftest import ROOT

GOOD = '''# /// exercise
# format_version = 1
# title = "Demo"
# syllabus = ["1.2"]
# entry = "f"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "compiles"
# points = 2
# ///
"""Make f one graph."""

import torch


def f(x):
    # BEGIN SOLUTION
    return x.sin()
    # END SOLUTION
    # BEGIN STARTER
    # print(x)  # TODO: remove the print
    #
    # return x.sin()
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER
'''


def write(tmp_path, text, name="demo_one.py", chapter="01_demo"):
    folder = tmp_path / "solutions" / chapter
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_a_good_master_parses(tmp_path):
    exercise = parse_master(write(tmp_path, GOOD))
    assert exercise.id == "demo_one" and exercise.chapter_number == 1
    assert exercise.compile == {"fullgraph": True} and exercise.max_score == 2
    assert exercise.task == "Make f one graph."
    assert [c.name for c in exercise.checks] == ["compiles"]


def test_the_starter_drops_solution_and_grader_and_uncomments_the_broken_code(tmp_path):
    text = starter_source(GOOD, "demo_one", "Demo")
    tree = ast.parse(text)
    assert "print(x)  # TODO: remove the print\n\n    return x.sin()" in text
    assert "BEGIN" not in text and "calls(" not in text and "/// exercise" not in text
    assert "./course check demo_one" in text
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == ["f"]


def test_the_master_itself_is_runnable_python_with_the_fix(tmp_path):
    namespace = {}
    exec(compile(GOOD, "master", "exec"), namespace)
    assert "calls" in namespace and "f" in namespace


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("# /// exercise\n", "", 1), "first line"),
    (lambda t: t.replace('# title = "Demo"\n', ""), "needs 'title'"),
    (lambda t: t.replace("format_version = 1", "format_version = 9"), "format_version"),
    (lambda t: t.replace('kind = "compiles"', 'kind = "vibes"'), "unknown check kind"),
    (lambda t: t.replace('starter_fails = ["compiles"]', 'starter_fails = ["graphs"]'), "starter_fails"),
    (lambda t: t.replace('hints = ["where", "how"]', 'hints = ["only one"]'), "at least two"),
    (lambda t: t.replace("    # END SOLUTION\n", ""), "inside an open SOLUTION"),
    (lambda t: t.replace("# TODO: remove the print", ""), "TODO"),
    (lambda t: t.replace('syllabus = ["1.2"]', 'syllabus = ["3.1"]'), "chapter 1"),
    (lambda t: t.replace("    # print(x)", "    print(x)"), "commented"),
    (lambda t: t.replace("# points = 2", "# points = -1"), "points"),
    (lambda t: t.replace('"""Make f one graph."""\n', ""), "docstring"),
    (lambda t: t.replace("# entry = \"f\"", "# entry = \"f\"\n# colour = 3"), "unknown header keys"),
])
def test_authors_get_a_clear_error(tmp_path, change, message):
    with pytest.raises(ExerciseFormatError, match=message):
        parse_master(write(tmp_path, change(GOOD)))


def test_bad_id_is_rejected(tmp_path):
    with pytest.raises(ExerciseFormatError, match="valid id"):
        parse_master(write(tmp_path, GOOD, name="Bad-Name.py"))


def test_header_must_be_toml(tmp_path):
    with pytest.raises(ExerciseFormatError, match="TOML"):
        split_header("# /// exercise\n# title = \n# ///\n")


def test_syllabus_copy_matches_the_outline():
    ids = [sid for sid, _, _ in syllabus_ids()]
    assert ids[:5] == ["1.1", "1.2", "1.3", "1.4", "1.5"] and "8.3" in ids and len(ids) == len(set(ids))
    shared = ROOT.parent / "shared" / "SYLLABUS.md"
    if shared.is_file():
        assert shared.read_text() == (ROOT / "SYLLABUS.md").read_text(), "SYLLABUS.md drifted from ../shared/SYLLABUS.md"


def test_template_is_a_valid_master(tmp_path):
    template = (ROOT / "autograder" / "authoring" / "templates" / "exercise.py").read_text()
    exercise = parse_master(write(tmp_path, template, name="template_demo.py"))
    assert exercise.hints and exercise.checks

"""The master-file format: header, regions, generated starter, and the errors authors see."""

import ast
import re

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
    (lambda t: t.replace("# entry = \"f\"", "# entry = \"f\"\n# capstone = \"yes\""), "capstone is true or false"),
])
def test_authors_get_a_clear_error(tmp_path, change, message):
    with pytest.raises(ExerciseFormatError, match=message):
        parse_master(write(tmp_path, change(GOOD)))


def test_a_capstone_comes_last_in_its_chapter_and_a_chapter_has_one(tmp_path):
    from autograder.format.exercise import discover

    late = GOOD.replace('# syllabus = ["1.2"]', '# syllabus = ["1.5"]')
    write(tmp_path, late, name="demo_late.py")
    write(tmp_path, GOOD.replace('# entry = "f"', '# entry = "f"\n# capstone = true'), name="demo_capstone.py")
    assert [e.id for e in discover(tmp_path / "solutions")] == ["demo_late", "demo_capstone"]
    write(tmp_path, late.replace('# entry = "f"', '# entry = "f"\n# capstone = true'), name="demo_second.py")
    with pytest.raises(ExerciseFormatError, match="already has a capstone"):
        discover(tmp_path / "solutions")


def test_bad_id_is_rejected(tmp_path):
    with pytest.raises(ExerciseFormatError, match="valid id"):
        parse_master(write(tmp_path, GOOD, name="Bad-Name.py"))


def test_header_must_be_toml(tmp_path):
    with pytest.raises(ExerciseFormatError, match="TOML"):
        split_header("# /// exercise\n# title = \n# ///\n")


def test_syllabus_copy_matches_the_outline():
    entries = syllabus_ids()
    ids = [sid for sid, _, _ in entries]
    top = [sid for sid in ids if sid.count(".") == 1 and sid.startswith("1.")]
    assert top == ["1.1", "1.2", "1.3", "1.4", "1.5"] and "8.3" in ids and len(ids) == len(set(ids))
    shared = ROOT.parent / "shared" / "SYLLABUS.md"
    if shared.is_file():
        # The course keeps every ID of the outline, with its title and mark, in order; it may add
        # sub-IDs (issue 21's additions, a new chapter), never drop or rename one.
        outline = re.findall(r"^\s*- (\d+(?:\.\d+)+) (.+?)(\s\*\*\[ex\]\*\*)?\s*$", shared.read_text(), re.M)
        kept = [(sid, title.strip(), bool(ex)) for sid, title, ex in outline]
        ours = [entry for entry in entries if entry[0] in {sid for sid, _, _ in kept}]
        assert ours == kept, "SYLLABUS.md lost or changed an ID of ../shared/SYLLABUS.md"


def test_template_is_a_valid_master(tmp_path):
    template = (ROOT / "autograder" / "authoring" / "templates" / "exercise.py").read_text()
    exercise = parse_master(write(tmp_path, template, name="template_demo.py"))
    assert exercise.hints and exercise.checks


# -- requirements, fair fixes and wrong fixes (issue 18's method) --------------------------------

VARIANTS = '''# /// exercise
# format_version = 1
# title = "Weighted means in one graph"
# syllabus = ["1.1"]
# entry = "weighted_row_means"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "compiles"
# [[checks]]
# kind = "graphs"
# equal = 1
# [[checks]]
# kind = "correct"
#
# [[requirements]]
# id = "one_graph"
# text = "Every call runs as one graph, with no graph break."
# checks = ["compiles", "graphs"]
# [[requirements]]
# id = "weighted_mean"
# text = "Each row's mean is weighted by `weights`."
# checks = ["correct"]
#
# [[fair]]
# name = "einsum"
# why = "einsum instead of broadcasting and a sum"
# [[fair]]
# name = "matmul"
# why = "a matrix-vector product"
#
# [[wrong]]
# name = "unweighted"
# breaks = "weighted_mean"
# fails = ["correct"]
# message = "differs from the reference"
# [[wrong]]
# name = "item_total"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "item"
# ///
"""Make `weighted_row_means` one graph."""

import torch


def weighted_row_means(values, weights):
    total = total_weight(weights)
    # BEGIN SOLUTION
    return (values * weights).sum(dim=-1) / total
    # END SOLUTION
    # BEGIN STARTER
    # return torch.tensor([sum(r) for r in values.tolist()]) / total  # TODO: stay in tensors
    # END STARTER

    # BEGIN FAIR einsum
    # return torch.einsum("rn,n->r", values, weights) / total
    # END FAIR
    # BEGIN FAIR matmul
    # return values @ weights / total
    # END FAIR
    # BEGIN WRONG unweighted
    # return values.mean(dim=-1)
    # END WRONG
    # BEGIN WRONG item_total
    # return (values * weights).sum(dim=-1) / total.item()
    # END WRONG


def total_weight(weights):
    # BEGIN SOLUTION
    return weights.sum()
    # END SOLUTION
    # BEGIN STARTER
    # return weights.sum()
    # END STARTER
    # BEGIN FAIR matmul
    # return torch.ones_like(weights) @ weights
    # END FAIR


# BEGIN FAIR einsum
# EINSUM_NOTE = "a module-level line only the einsum variant adds"
# END FAIR


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(3, 5, generator=gen), torch.rand(5, generator=gen) + 0.1)]
# END GRADER
'''

from autograder.format.exercise import requirements_block, solution_view, variant_source  # noqa: E402


def test_requirements_and_variants_parse(tmp_path):
    exercise = parse_master(write(tmp_path, VARIANTS, name="weighted.py"))
    assert [(r.id, r.checks) for r in exercise.requirements] == [("one_graph", ("compiles", "graphs")),
                                                                 ("weighted_mean", ("correct",))]
    assert [f.name for f in exercise.fair] == ["einsum", "matmul"]
    assert [(w.name, w.breaks, w.fails) for w in exercise.wrong] == [("unweighted", "weighted_mean", ("correct",)),
                                                                     ("item_total", "one_graph", ("compiles",))]
    assert exercise.statement == "Make `weighted_row_means` one graph."
    assert exercise.task == exercise.statement + "\n\n" + requirements_block([r.text for r in exercise.requirements])
    assert [r.id for r in exercise.requirements_for("graphs")] == ["one_graph"]


def test_the_starter_lists_the_requirements_and_drops_every_variant():
    text = starter_source(VARIANTS, "weighted", "Weighted means in one graph")
    docstring = ast.get_docstring(ast.parse(text))
    assert docstring == ("Make `weighted_row_means` one graph.\n\nWhat the grader checks:\n"
                         "- Every call runs as one graph, with no graph break.\n- Each row's mean is weighted by `weights`.")
    for leaked in ("einsum", "matmul", "mean(dim", "item()", "FAIR", "WRONG", "EINSUM_NOTE"):
        assert leaked not in text, leaked


def test_a_fair_variant_replaces_the_solution_at_its_sites_only():
    text = variant_source(VARIANTS, "einsum")
    assert 'return torch.einsum("rn,n->r", values, weights) / total' in text
    assert "return weights.sum()" in text  # the site without an einsum region keeps the solution
    assert 'EINSUM_NOTE = "a module-level line' in text  # a region outside any site is inserted where it stands
    assert "(values * weights).sum(dim=-1) / total" not in text and "tolist" not in text and "calls(" not in text
    assert "What the grader checks:" in ast.get_docstring(ast.parse(text))
    both = variant_source(VARIANTS, "matmul")
    assert "return values @ weights / total" in both and "torch.ones_like(weights) @ weights" in both
    assert "EINSUM_NOTE" not in both


def test_a_wrong_variant_renders_as_a_learner_file():
    text = variant_source(VARIANTS, "item_total", exercise_id="weighted", title="T")
    assert text.startswith("# Exercise weighted: T\n")
    assert "/ total.item()" in text and "ast" not in text
    ast.parse(text)
    with pytest.raises(ExerciseFormatError, match="no FAIR or WRONG region is named 'nope'"):
        variant_source(VARIANTS, "nope")


def test_solution_view_and_split_header_drop_variants(tmp_path):
    exercise = parse_master(write(tmp_path, VARIANTS, name="weighted.py"))
    view = solution_view(exercise)
    assert "(values * weights).sum(dim=-1) / total" in view and "einsum" not in view and "FAIR" not in view
    _, code = split_header(VARIANTS)
    assert "FAIR" not in code and "WRONG" not in code and "einsum" not in code and "# BEGIN STARTER" in code
    _, raw = split_header(VARIANTS, keep_variants=True)
    assert "# BEGIN FAIR einsum" in raw


def test_nbgrader_cells_drop_variants(tmp_path):
    from autograder.classroom import nbgrader_bridge as bridge

    exercise = parse_master(write(tmp_path, VARIANTS, name="weighted.py"))
    cells = bridge.answer_source(exercise) + bridge.starter_code(exercise) + bridge.solution_code(exercise)
    assert "einsum" not in cells and "mean(dim" not in cells and "EINSUM_NOTE" not in cells
    assert "What the grader checks:" in bridge.task_markdown(1, exercise)


def _swap(old, new, count=1):
    def change(text):
        assert old in text, old
        return text.replace(old, new, count)
    return change


@pytest.mark.parametrize("change, message", [
    (_swap('# checks = ["correct"]\n', '# checks = ["vibes"]\n'), r"requirement 'weighted_mean' names unknown checks \['vibes'\]"),
    (_swap('# checks = ["correct"]\n', '# checks = []\n'), "at least one"),
    (_swap('# id = "weighted_mean"', '# id = "one_graph"'), "two requirements have the id 'one_graph'"),
    (_swap('# id = "weighted_mean"', '# id = "Weighted"'), "id must match"),
    (_swap("# text = \"Each row's mean is weighted by `weights`.\"\n", ""), r"requirement 'weighted_mean' needs \['text'\]"),
    (_swap('# text = "Every call', '# colour = "red"\n# text = "Every call'), r"does not take \['colour'\]"),
    (_swap('# text = "Every call runs as one graph, with no graph break."',
           '# text = "Every call runs as one graph, \\"\\"\\" quoted."'), "triple quotes"),
    (_swap('# breaks = "weighted_mean"', '# breaks = "fast"'), "breaks = 'fast' is not a requirement id"),
    (_swap('# fails = ["correct"]', '# fails = ["compiles"]'), r"fails names \['compiles'\], which do not enforce requirement 'weighted_mean'"),
    (_swap('# message = "item"', '# message = "(unclosed"'), "not a valid regular expression"),
    (_swap('# why = "a matrix-vector product"\n', ""), r"fair fix 'matmul' needs \['why'\]"),
    (_swap('# name = "matmul"', '# name = "einsum"'), "two \\[\\[fair\\]\\] entries are named 'einsum'"),
    (_swap("    # BEGIN WRONG unweighted", "    # BEGIN WRONG unweighed"), "the WRONG region 'unweighed' has no \\[\\[wrong\\]\\] entry"),
    (_swap('# name = "unweighted"', '# name = "extra"'), "the WRONG region 'unweighted' has no"),
    (lambda t: t.replace("BEGIN FAIR matmul", "BEGIN FAIR einsum").replace("# BEGIN FAIR einsum\n# EINSUM", "# BEGIN FAIR x\n# EINSUM"),
     "a second FAIR einsum region at the site"),
    (lambda t: _swap("    # BEGIN FAIR matmul\n    # return values @ weights / total\n    # END FAIR\n", "")(
        _swap("    # BEGIN FAIR matmul\n    # return torch.ones_like(weights) @ weights\n    # END FAIR\n", "")(t)),
     "\\[\\[fair\\]\\] 'matmul' has no '# BEGIN FAIR matmul' region"),
    (_swap("    # BEGIN FAIR einsum\n", "    # BEGIN FAIR\n"), "a FAIR region needs a name"),
    (_swap("    # BEGIN FAIR einsum\n", "    # begin fair einsum\n"), "looks like a region marker"),
    (_swap("    # BEGIN STARTER\n", "    # BEGIN STARTER broken\n", 1), "takes no name"),
    (_swap("    # END WRONG\n", "    # END FAIR\n", 1), "'# END FAIR' without a matching BEGIN"),
    (_swap("    # BEGIN WRONG item_total\n    # return", "    # BEGIN WRONG item_total\n    return"), "WRONG lines must be commented"),
    (_swap("    # return values @ weights / total", "    # return values @ weights / total +"), "the FAIR variant 'matmul' is not valid Python"),
    (lambda t: _swap('    # return torch.einsum("rn,n->r", values, weights) / total', "    # return (values * weights).sum(dim=-1) / total")(
        _swap('# EINSUM_NOTE = "a module-level line only the einsum variant adds"', "#")(t)),
     "the FAIR variant 'einsum' is the reference solution itself"),
    (_swap("# [[fair]]\n# name = \"einsum\"", "# [fair]\n# name = \"einsum\""), "not valid TOML|list of tables"),
])
def test_authors_get_a_clear_error_for_variant_mistakes(tmp_path, change, message):
    with pytest.raises(ExerciseFormatError, match=message):
        parse_master(write(tmp_path, change(VARIANTS), name="weighted.py"))


def test_two_regions_of_one_variant_at_one_site_are_refused(tmp_path):
    text = VARIANTS.replace("    # BEGIN WRONG unweighted\n", "    # BEGIN FAIR einsum\n    # return values.sum(-1)\n    # END FAIR\n"
                            "    # BEGIN WRONG unweighted\n", 1)
    with pytest.raises(ExerciseFormatError, match="a second FAIR einsum region at the site"):
        parse_master(write(tmp_path, text, name="weighted.py"))


def test_a_message_names_the_master_line(tmp_path):
    text = VARIANTS.replace("    # BEGIN WRONG unweighted", "    # BEGIN WRONG unweighed")
    line = text.splitlines().index("    # BEGIN WRONG unweighed") + 1
    with pytest.raises(ExerciseFormatError, match=rf"weighted.py:{line}:"):
        parse_master(write(tmp_path, text, name="weighted.py"))


def test_comment_lines_between_regions_keep_the_site():
    text = VARIANTS.replace("    # END STARTER\n\n    # BEGIN FAIR einsum", "    # END STARTER\n    # (why the variants differ)\n\n    # BEGIN FAIR einsum")
    assert "(why the variants differ)" in text
    variant = variant_source(text, "einsum")
    assert "(values * weights).sum(dim=-1) / total" not in variant, "the einsum region still replaces the solution"


def test_a_region_after_code_stands_alone():
    text = VARIANTS.replace("    # END STARTER\n\n    # BEGIN FAIR einsum", "    # END STARTER\n    note = 1\n\n    # BEGIN FAIR einsum")
    variant = variant_source(text, "einsum")
    assert "(values * weights).sum(dim=-1) / total\n" in variant and 'torch.einsum("rn,n->r"' in variant


def test_build_deletes_orphaned_starters_and_keeps_other_files(tmp_path, monkeypatch):
    from autograder.format import build as builder
    from autograder.format import exercise as exercise_format

    exercises = tmp_path / "exercises"
    monkeypatch.setattr(builder, "EXERCISES", exercises)
    monkeypatch.setattr(exercise_format, "EXERCISES", exercises)
    master = parse_master(write(tmp_path, GOOD))
    (exercises / "01_demo").mkdir(parents=True)
    orphan = exercises / "01_demo" / "renamed_away.py"
    orphan.write_text(starter_source(GOOD, "renamed_away", "Demo"))
    mine = exercises / "01_demo" / "my_notes.py"
    mine.write_text("# my own scratch file\n")
    monkeypatch.setattr(builder, "expected_files", lambda found=None: {master.starter: starter_source(GOOD, "demo_one", "Demo")})
    changed = builder.build([master])
    assert master.starter.is_file() and orphan in changed and not orphan.exists()
    assert mine.exists() and builder.unexpected_files([master]) == [mine]

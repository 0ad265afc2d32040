"""nbgrader without drift: generate the course from the masters, and grade answer cells with ``grade()``.

``python -m autograder nbgrader build --out build/nbgrader`` writes a complete nbgrader course
directory (nothing in it is edited by hand; the same input gives byte-identical files):

    nbgrader_config.py              course id, root, gradebook, exchange, cell timeout, the grading step
    autograder_course.json          what was built: assignments, exercises, points, hidden checks, options
    source/<chapter>/<chapter>.ipynb one assignment per chapter

Each exercise is three cells: a locked task (the master's docstring and hints), the learner's answer
cell and a locked check cell worth the exercise's points. The answer cell starts with
``# ANSWER <id>:`` and holds the broken starter code *outside* ``### BEGIN SOLUTION`` blocks; each
block re-defines what the fix changes, so ``nbgrader generate_assignment`` (with the generated,
empty ``ClearSolutions.code_stub``) releases exactly the code of the learner's ``exercises/`` file.

The score that counts never comes from the kernel: the generated config adds
``autograder.classroom.nbgrader_grading.GradeAnswersOutOfKernel`` to nbgrader's autograde steps, which grades
each answer cell's *source* with ``grade()`` in a fresh process and writes the result into the check
cell's outputs before nbgrader's own ``SaveAutoGrades`` reads them. The check cell's in-kernel call
(``check_answer``) is only instant feedback while the learner works, and it refuses to score during
autograding, so a course whose config lost the grading step scores 0, never full marks.

Everything here is plain JSON and text; nbgrader itself is only imported by ``nbgrader_grading``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.format import exercise as exercise_format
from autograder.format import syntax
from autograder.format.exercise import ROOT, Exercise, discover, lesson_for, load
from autograder.learner.view import learner_view, parse_hide, relabel, render
from autograder.format.result import ERROR, FAILED, CheckResult, Result

FORMAT = 1
DEFAULT_OUT = ROOT / "build" / "nbgrader"
DEFAULT_COURSE_ID = "torch-compile-course"
MANIFEST = "autograder_course.json"
CONFIG = "nbgrader_config.py"
GENERATED_BY = "python -m autograder nbgrader build"
CODE_STUB = ""  # a released solution block becomes an empty line; the first line says what to do
ANSWER_LINE = "# ANSWER {id}: fix the code in this cell. It is graded on its own, in a fresh process, so keep its imports."
ANSWER_MARKER = re.compile(r"^# ANSWER ([a-z][a-z0-9_]{1,31}):")
ANSWER_LABEL = "your answer cell"
AUTOGRADE_NOTE = ("This check cell does not score anything during autograding: the course grader grades your "
                  "answer cell outside the notebook. If you read this in your feedback, the grading step "
                  "is missing from nbgrader_config.py; tell your instructor.")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def answer_cell_id(exercise_id: str) -> str:
    return f"answer_{exercise_id}"


def check_cell_id(exercise_id: str) -> str:
    return f"check_{exercise_id}"


def task_cell_id(exercise_id: str) -> str:
    return f"task_{exercise_id}"


# -- code of the cells, from the master ----------------------------------------------------------
#
# The source answer cell must run as the fix (the instructor's notebook validates) and release as
# the broken code. It is built from the master chunk by chunk (a chunk: one top-level statement,
# or a group of regions with the statements in it). An unchanged chunk appears once. A chunk with
# SOLUTION/STARTER regions appears as its starter version followed by a ``### BEGIN SOLUTION``
# block with its fixed version, which nbgrader's release replaces with an empty line. Module-level
# code that both versions share (weights drawn from the RNG, a registered operator) therefore runs
# once, exactly as in the learner's file, and the fixed definitions replace the broken ones.

@dataclass
class _Line:
    text: str
    region: str | None  # SOLUTION / STARTER / GRADER / None
    marker: bool
    indent: str  # the region's marker indentation


def _lines(exercise: Exercise) -> list[_Line]:
    """The master's code line by line, from the format's own region reader. Only SOLUTION (the fix)
    and STARTER (the broken code) reach a cell; GRADER is dropped later, and the FAIR and WRONG
    variants (the verdict study's fixes) are left out here, markers and all."""
    _, items = exercise_format._header_and_body(exercise.master.read_text(encoding="utf-8"), exercise.id)
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(_Line(item.rstrip("\n").rstrip("\r"), None, False, ""))
            continue
        if item.kind in exercise_format.VARIANT_KINDS:
            continue
        out.append(_Line(item.begin.rstrip("\n"), item.kind, True, item.indent))
        out += [_Line(line.rstrip("\n").rstrip("\r"), item.kind, False, item.indent) for line in item.lines]
        out.append(_Line(item.end.rstrip("\n"), item.kind, True, item.indent))
    return out


def _starter_text(line: _Line) -> str:
    """A STARTER line uncommented, as ``starter_source`` does."""
    if line.region != "STARTER" or not line.text.strip():
        return line.text if line.region != "STARTER" else ""
    prefix = line.indent + "# "
    if line.text.startswith(prefix):
        return line.indent + line.text[len(prefix):]
    return "" if line.text.strip() == "#" else line.text


def _rendering(lines: list[_Line], side: str) -> list[tuple[int, str]]:
    """(master line index, text) of the fixed (``side="fix"``) or the starter version."""
    keep = ("SOLUTION",) if side == "fix" else ("STARTER",)
    return [(i, _starter_text(line) if side == "starter" else line.text) for i, line in enumerate(lines)
            if not line.marker and (line.region is None or line.region in keep)]


def _statements(rendering: list[tuple[int, str]]) -> tuple[list[int], set[int]]:
    """Start lines (master indices) of the top-level statements, and the lines of the docstring and
    the ``if __name__ == "__main__":`` demo (in a notebook ``__name__`` is ``"__main__"``)."""
    tree = syntax.parse("\n".join(text for _, text in rendering) + "\n")
    starts, dropped = [], set()
    for position, node in enumerate(tree.body):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        starts.append(rendering[first - 1][0])
        docstring = position == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str)
        if docstring or (isinstance(node, ast.If) and _is_main_guard(node.test)):
            dropped.update(rendering[n - 1][0] for n in range(first, node.end_lineno + 1))
    return starts, dropped


def _is_main_guard(test) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _groups(lines: list[_Line]) -> list[tuple[int, int, str]]:
    """(first, last, indent) of each run of SOLUTION/STARTER regions with only blank lines between."""
    spans, begin = [], None
    for i, line in enumerate(lines):
        if line.marker and line.region in ("SOLUTION", "STARTER"):
            if line.text.strip().startswith("# BEGIN"):
                begin = i
            else:
                spans.append((begin, i, line.indent))
    groups: list[list] = []
    for first, last, indent in spans:
        if groups and groups[-1][2] == indent and all(not lines[j].text.strip() for j in range(groups[-1][1] + 1, first)):
            groups[-1][1] = last
        else:
            groups.append([first, last, indent])
    return [tuple(g) for g in groups]


def _chunks(exercise: Exercise):
    lines = _lines(exercise)
    fix, starter = _rendering(lines, "fix"), _rendering(lines, "starter")
    fix_starts, fix_dropped = _statements(fix)
    starter_starts, starter_dropped = _statements(starter)
    groups = _groups(lines)
    bounds = set(fix_starts) | set(starter_starts) | {first for first, _, indent in groups if not indent}
    bounds = {b for b in bounds if not any(first < b <= last for first, last, _ in groups)}
    bounds = sorted(bounds | {0})
    fix_text, starter_text = dict(fix), dict(starter)
    dropped = fix_dropped | starter_dropped
    for start, end in zip(bounds, bounds[1:] + [len(lines)]):
        span = range(start, end)
        changed = any(lines[i].region in ("SOLUTION", "STARTER") for i in span)
        yield (changed,
               [starter_text[i] for i in span if i in starter_text and i not in dropped],
               [fix_text[i] for i in span if i in fix_text and i not in dropped])


def _tidy(lines: list[str]) -> str:
    text = "\n".join(lines)
    return re.sub(r"\n{4,}", "\n\n\n", text).strip("\n")


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return lines


def starter_code(exercise: Exercise) -> str:
    """The learner's starting code (``exercises/<chapter>/<id>.py`` without its header comments,
    docstring and demo) as an answer cell body."""
    return _tidy([line for _, starter, _ in _chunks(exercise) for line in starter])


def solution_code(exercise: Exercise) -> str:
    """The master's fixed code as a file: SOLUTION kept, STARTER and GRADER dropped, no docstring or demo."""
    return _tidy([line for _, _, fixed in _chunks(exercise) for line in fixed]) + "\n"


def answer_source(exercise: Exercise) -> str:
    """The answer cell of the *source* notebook: the broken code visible, each fix in a solution block."""
    out = []
    for changed, starter, fixed in _chunks(exercise):
        if not changed:
            out += starter
            continue
        out += _trim(starter) + ["### BEGIN SOLUTION"] + _trim(fixed) + ["### END SOLUTION", ""]
    return ANSWER_LINE.format(id=exercise.id) + "\n" + _tidy(out)


def released_answer_source(exercise: Exercise) -> str:
    """What ``nbgrader generate_assignment`` makes of ``answer_source`` with the generated config:
    each solution block becomes the (empty) code stub."""
    out, inside = [], False
    for line in answer_source(exercise).split("\n"):
        if "BEGIN SOLUTION" in line:
            inside = True
            out.append(re.match(r"\s*", line).group(0) + CODE_STUB)
        elif "END SOLUTION" in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def check_source(exercise_id: str, hidden=()) -> str:
    """The check cell. With hidden checks it names the checks to *show*, so no hidden name is released."""
    shown = [c.name for c in load(exercise_id).checks if c.name not in set(hidden)]
    hidden_arg = f", shown={shown!r}" if hidden else ""
    return (f"# Check {exercise_id} (locked): run your answer cell above, then this cell.\n"
            "# The score that counts comes from the course grader: after you submit, it grades your answer\n"
            "# cell by itself, in a fresh process. Nothing else run in this notebook can change it.\n"
            "from autograder.classroom.nbgrader_bridge import check_answer\n"
            "\n"
            f"check_answer({exercise_id!r}{hidden_arg})")


def chapter_title(chapter: str) -> str:
    """The lesson's first heading (``# # 1 Dynamo core concepts``), else the folder name. For a
    chapter in several lessons (``# # 2a Working with graph breaks (part 1: ...)``), the chapter's
    part of the first one's: ``2 Working with graph breaks``."""
    lesson = lesson_for(chapter, str(int(chapter[:2])))
    if lesson.is_file():
        for line in lesson.read_text(encoding="utf-8").splitlines():
            match = re.match(r"^# # (\d+)([a-z]?) (.+)$", line)
            if match:
                title = re.sub(r" \(part \d+[^)]*\)$", "", match[3].strip()) if match[2] else match[3].strip()
                return f"{match[1]} {title}"
            match = re.match(r"^# # (.+)$", line)
            if match:
                return match[1].strip()
    return chapter


def released_hints(exercise: Exercise, fix_hint: bool = False) -> list[str]:
    """The hints a learner is given in a classroom: the ladder without its last rung, which states
    the fix, unless the instructor releases it (``fix_hint``)."""
    return list(exercise.hints) if fix_hint else list(exercise.hints[:-1])


def task_markdown(number: int, exercise: Exercise, hidden=(), fix_hint: bool = False) -> str:
    shown = [c for c in exercise.checks if c.name not in set(hidden)]
    checks = ", ".join(f"{c.name} ({c.points})" for c in shown)
    more = "; more checks that are not shown also count" if hidden else ""
    lines = [f"## {number}. {exercise.title} (`{exercise.id}`, {exercise.max_score} points)", "", exercise.task, "",
             f"Lesson section {exercise.section} in `{exercise.rel(exercise.lesson)}` teaches what you need. "
             f"Checks: {checks}{more}."]
    hints = released_hints(exercise, fix_hint)
    for level, hint in enumerate(hints, start=1):
        lines += ["", f"<details><summary>Hint {level} of {len(hints)}</summary>", "", hint, "", "</details>"]
    return "\n".join(lines)


def intro_markdown(chapter: str, exercises: list[Exercise]) -> str:
    total = sum(e.max_score for e in exercises)
    return "\n".join([
        f"# {chapter_title(chapter)}: graded exercises",
        "",
        f"Assignment `{chapter}`: {len(exercises)} exercise(s), {total} points. Each exercise has three cells:",
        "",
        "1. the task;",
        "2. **your answer cell**, which starts with `# ANSWER <id>:` and holds the broken code. Fix the code in that "
        "cell. Keep its first line and its imports: the grader runs the cell on its own, as a file, in a fresh "
        "Python process;",
        "3. a locked **check cell**. Run your answer cell, then the check cell, to see what the grader measures: "
        "graphs, the line that broke a graph and why, recompiles, and whether your results are right "
        "on inputs the grader draws itself.",
        "",
        "Your score is computed after you submit, by the course grader, from your answer cells only: nothing else "
        "you run in this notebook can change it. Do not rename this notebook.",
    ])


# -- the course directory ------------------------------------------------------------------------

@dataclass
class BuildOptions:
    exercises: list[str] | None = None  # ids to include (default: every exercise)
    hide: list[str] = field(default_factory=list)  # "ID:CHECK" items hidden from learners
    course_id: str = DEFAULT_COURSE_ID
    due: dict = field(default_factory=dict)  # assignment (or "*") -> ISO due time, from term.parse_due
    late_policy: str = "none"  # term.LatePolicy text
    fix_hint: bool = False  # release the last hint (the fix) to learners

    def to_dict(self) -> dict:
        return {"exercises": sorted(self.exercises) if self.exercises else None, "hide": sorted(self.hide),
                "course_id": self.course_id, "due": dict(sorted(self.due.items())), "late_policy": self.late_policy,
                "fix_hint": self.fix_hint}

    @classmethod
    def from_dict(cls, data: dict) -> "BuildOptions":
        return cls(exercises=data.get("exercises"), hide=list(data.get("hide", [])), course_id=data.get("course_id", DEFAULT_COURSE_ID),
                   due=dict(data.get("due") or {}), late_policy=data.get("late_policy", "none"), fix_hint=bool(data.get("fix_hint", False)))


def fits_a_notebook(exercise: Exercise) -> bool:
    """Whether the exercise can be an answer cell. A reproducer exercise grades the learner's whole
    file against a line budget, which the source cell (broken code plus fix) cannot meet; it is
    graded as a file (Gradescope, grade-batch) instead."""
    return not any(check.kind == "reproducer" for check in exercise.checks)


def selected_exercises(ids: list[str] | None) -> list[Exercise]:
    every = [e for e in discover() if fits_a_notebook(e)]
    if not ids:
        return every
    known = {e.id for e in every}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValueError(f"unknown exercise id(s) {', '.join(unknown)}. Known: {', '.join(sorted(known))}")
    return [e for e in every if e.id in set(ids)]


def _nbgrader_meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def _cell(kind: str, cell_id: str, source: str, meta: dict) -> dict:
    cell = {"cell_type": kind, "id": cell_id.replace("_", "-"), "metadata": {"nbgrader": meta}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def check_cell(exercise_id: str, points: int, hidden=()) -> dict:
    return _cell("code", check_cell_id(exercise_id), check_source(exercise_id, hidden),
                 _nbgrader_meta(check_cell_id(exercise_id), grade=True, locked=True, points=points))


SETUP_SOURCE = ("# Setup (locked): starts the course grader in the background, so that the check cells answer quickly.\n"
                "from autograder.classroom.nbgrader_bridge import prepare_checks\n"
                "\n"
                "prepare_checks({chapter!r})")


def setup_cell_id(chapter: str) -> str:
    return f"setup_{chapter}"


def notebook(chapter: str, exercises: list[Exercise], hidden: dict[str, list[str]], fix_hint: bool = False) -> dict:
    cells = [_cell("markdown", f"intro_{chapter}", intro_markdown(chapter, exercises),
                   _nbgrader_meta(f"intro_{chapter}", locked=True)),
             _cell("code", setup_cell_id(chapter), SETUP_SOURCE.format(chapter=chapter),
                   _nbgrader_meta(setup_cell_id(chapter), locked=True))]
    for number, e in enumerate(exercises, start=1):
        cells.append(_cell("markdown", task_cell_id(e.id), task_markdown(number, e, hidden.get(e.id, ()), fix_hint),
                           _nbgrader_meta(task_cell_id(e.id), locked=True)))
        cells.append(_cell("code", answer_cell_id(e.id), answer_source(e), _nbgrader_meta(answer_cell_id(e.id), solution=True)))
        cells.append(check_cell(e.id, e.max_score, hidden.get(e.id, ())))
    return {"cells": cells, "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _notebook_text(nb: dict) -> str:
    import nbformat

    node = nbformat.from_dict(nb)
    nbformat.validate(node)
    return nbformat.writes(node, version=4) + "\n"


def config_text(course_id: str, timeout: int) -> str:
    return f'''# Generated by `{GENERATED_BY}` from solutions/. Do not edit: rebuild instead.
# docs/INSTRUCTORS.md explains every setting. Paths are relative to this file, so the course
# directory can live anywhere; NBGRADER_EXCHANGE_ROOT overrides the exchange (e.g. on a JupyterHub).
import os

c = get_config()  # noqa: F821 - nbgrader provides get_config() when it loads this file
HERE = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = HERE
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(HERE, "gradebook.db")
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE_ROOT") or os.path.join(HERE, "exchange")
if not os.environ.get("NBGRADER_EXCHANGE_ROOT"):  # release and collect need it to exist (a hub's is made by its admin)
    os.makedirs(c.Exchange.root, exist_ok=True)

# A check cell grades in a fresh process and may compile with Inductor: 30 s (the default) is too short.
c.Execute.timeout = {timeout}

# The released answer cell keeps the broken code and replaces the fix with this line.
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}

# A damaged notebook (not JSON, cut off) is read as far as it goes instead of failing the student.
c.Autograde.exporter_class = "autograder.classroom.nbgrader_grading.SalvagingExporter"
# Cells whose nbgrader metadata was changed (an unlocked check cell) are restored from the
# gradebook before nbgrader's OverwriteCells, which would otherwise stop at "Inconsistent checksums".
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.classroom.nbgrader_grading.RestoreCourseCells",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The score that counts: each answer cell's source graded out of the kernel (or taken from the
# class's parallel pre-grading, for the same source), written into the check cells before
# SaveAutoGrades records them. No learner code runs in nbgrader's kernel: a notebook of this
# course is not executed at all (any other notebook is, by nbgrader's own Execute).
c.Autograde.autograde_preprocessors = [
    "autograder.classroom.nbgrader_grading.GradeAnswersOutOfKernel",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.AnswerGrading.manifest = os.path.join(HERE, {MANIFEST!r})
# Late work: the policy recorded at build time (autograder_course.json), applied per notebook.
c.AssignLatePenalties.plugin_class = "autograder.classroom.nbgrader_grading.CourseLatePolicy"
# grades.csv gains a flags column: why a submission needs the instructor's look.
c.ExportApp.plugin_class = "autograder.classroom.nbgrader_grading.FlaggedCsvExport"

# Feedback: no hidden test source, ever (the check cells hold none; this is the belt to those braces).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
'''


def course_files(options: BuildOptions) -> dict[str, str]:
    """Every generated file of the course directory: relative path -> text."""
    from autograder.classroom.term import LatePolicy, TermError

    exercises = selected_exercises(options.exercises)
    if not exercises:
        raise ValueError("no exercises to build")
    hidden = parse_hide(options.hide, exercises)
    chapters: dict[str, list[Exercise]] = {}
    for e in exercises:
        chapters.setdefault(e.chapter, []).append(e)
    unknown = sorted(set(options.due) - set(chapters) - {"*"})
    if unknown:
        raise ValueError(f"--due names assignment(s) {', '.join(unknown)} that the course does not have: {', '.join(sorted(chapters))}")
    try:
        LatePolicy.parse(options.late_policy)
    except TermError as exc:
        raise ValueError(str(exc)) from None
    files = {}
    assignments = {}
    for chapter, members in sorted(chapters.items()):
        files[f"source/{chapter}/{chapter}.ipynb"] = _notebook_text(notebook(chapter, members, hidden, options.fix_hint))
        assignments[chapter] = {
            "notebook": chapter, "title": chapter_title(chapter), "due": options.due.get(chapter) or options.due.get("*"),
            "exercises": [{"id": e.id, "title": e.title, "points": e.max_score, "hidden": hidden.get(e.id, []),
                           "answer_cell": answer_cell_id(e.id), "check_cell": check_cell_id(e.id)} for e in members],
        }
    timeout = max(120, int(max(e.timeout for e in exercises)) + 60)
    files[CONFIG] = config_text(options.course_id, timeout)
    manifest = {"format": FORMAT, "generated_by": GENERATED_BY, "options": options.to_dict(), "assignments": assignments}
    files[MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    return files


def build(out: Path, options: BuildOptions) -> list[Path]:
    """Write the course into ``out``; returns the files written (only those that changed)."""
    written = []
    for rel, text in course_files(options).items():
        path = out / rel
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        written.append(path)
    return written


def read_manifest(course: Path) -> dict:
    path = Path(course) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: build the course first with `{GENERATED_BY} --out {course}`")
    return json.loads(path.read_text(encoding="utf-8"))


def stale_files(course: Path) -> list[str]:
    """Generated files of ``course`` that differ from what its masters and recorded options give now."""
    options = BuildOptions.from_dict(read_manifest(course)["options"])
    return [rel for rel, text in course_files(options).items()
            if not (course / rel).is_file() or (course / rel).read_text(encoding="utf-8") != text]


# -- answers in a notebook -----------------------------------------------------------------------

@dataclass
class Answer:
    exercise: str
    source: str
    cell_index: int
    how: str  # "cell" (found by its nbgrader id) or "marker" (a cell starting with "# ANSWER <id>:")


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def marked_exercise(source: str) -> str | None:
    """The exercise id named by an answer cell's first non-blank line, if any."""
    for line in source.splitlines():
        if line.strip():
            match = ANSWER_MARKER.match(line.strip())
            return match[1] if match else None
    return None


def find_answers(nb: dict, exercise_ids=None) -> dict[str, Answer]:
    """The answer of each exercise in a notebook (JSON as loaded): the cell with the exercise's
    nbgrader answer id, else the last code cell whose first line is ``# ANSWER <id>:`` (a cell the
    learner recreated). A learner owns every unlocked cell, so either is theirs to submit."""
    wanted = set(exercise_ids) if exercise_ids is not None else None
    by_id, by_marker = {}, {}
    for index, cell in enumerate(nb.get("cells", [])):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        grade_id = meta.get("grade_id", "")
        source = _source(cell)
        if isinstance(grade_id, str) and grade_id.startswith("answer_"):
            exercise_id = grade_id[len("answer_"):]
            if wanted is None or exercise_id in wanted:
                by_id[exercise_id] = Answer(exercise_id, source, index, "cell")
        elif cell.get("cell_type") == "code":
            exercise_id = marked_exercise(source)
            if exercise_id and (wanted is None or exercise_id in wanted):
                by_marker[exercise_id] = Answer(exercise_id, source, index, "marker")
    return {**by_marker, **by_id}


def load_notebook(path: Path) -> dict:
    """A notebook's JSON, read as every submission is (format/loader.py): a symbolic link, a notebook
    nested too deeply, too large or not UTF-8 raise SubmissionError (a ValueError) with a plain message."""
    from autograder.format.loader import read_notebook

    return read_notebook(path)


def as_python(source: str) -> str:
    """An answer cell as a Python file: notebook-only lines (``%magic``, ``!shell``) become ``pass``,
    so line numbers stay those of the cell."""
    out = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}pass  # notebook-only line, not run by the grader: {stripped}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def not_graded(exercise: Exercise, message: str, submission: str = "") -> Result:
    """A Result for an answer that could not be graded at all (for example, it is missing)."""
    checks = [CheckResult(c.name, c.kind, FAILED, 0, c.points, "Not run: " + message.split(". ")[0] + ".", c.section)
              for c in exercise.checks]
    return Result(exercise=exercise.id, status=ERROR, score=0, max_score=exercise.max_score, checks=checks,
                  measurements={}, message=message, submission=submission, lesson=exercise.rel(exercise.lesson))


def missing_answer_message(exercise_id: str) -> str:
    return (f"Your notebook has no answer cell for {exercise_id}: it was deleted, or retyped without its first line "
            f"`# ANSWER {exercise_id}:`. Nothing could be graded, so this exercise scores 0. Paste your code back "
            f"into a cell that starts with that line, or ask for a fresh copy of the assignment.")


def grade_source(exercise_id: str, source: str, *, seed=None, timeout=None, label: str = ANSWER_LABEL,
                 costly: bool = True, warm: bool | None = None) -> Result:
    """Grade an answer cell's source with ``grade()`` (a file in a temporary directory, a fresh child);
    paths in the messages name ``label`` instead of the temporary file. ``costly`` and ``warm`` as in ``grade()``."""
    from autograder.engine.grader import grade

    with tempfile.TemporaryDirectory(prefix="autograder-answer-") as tmp:
        path = Path(tmp) / f"{exercise_id}.py"
        path.write_text(as_python(source), encoding="utf-8")
        result = grade(exercise_id, path, seed=seed, timeout=timeout, costly=costly, warm=warm)
        return relabel(result, str(path), label)


# -- the check cell's in-kernel call -------------------------------------------------------------

class NotPassed(AssertionError):
    """Raised by a check cell that did not pass; IPython shows only the summary, no traceback."""

    def __init__(self, summary: str):
        super().__init__(summary)
        self.summary = summary

    def _render_traceback_(self):
        return [f"NotPassed: {self.summary}"]


def _latest_answer_in_history(exercise_id: str) -> str | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    for source in reversed(shell.history_manager.input_hist_raw):
        if marked_exercise(source) == exercise_id:
            return source
    return None


_EARLY: dict[tuple[str, str], object] = {}  # (exercise, sha256 of the answer's source) -> Future of its Result


def _source_key(exercise_id: str, source: str) -> tuple[str, str]:
    return exercise_id, hashlib.sha256(source.encode()).hexdigest()


def prepare_checks(chapter: str | None = None) -> None:
    """The notebook's setup cell: start grading, in the background and two at a time, every answer
    cell of the notebook as saved (``<chapter>.ipynb`` in the kernel's folder), so that a check cell
    whose answer is unchanged since the save (``nbgrader validate``, a reopened notebook) shows its
    result at once; a changed answer is graded when its check cell runs. Nothing during autograding
    (no check runs in the kernel then) or in classroom mode (the service grades)."""
    from autograder.learner import remote

    if os.environ.get("NBGRADER_EXECUTION") == "autograde" or remote.configured():
        return
    from concurrent.futures import ThreadPoolExecutor

    saved = Path(f"{chapter}.ipynb") if chapter else None
    answers = {}
    if saved is not None and saved.is_file() and not saved.is_symlink():
        from autograder.classroom.salvage import read_notebook

        answers = find_answers(read_notebook(saved).notebook())
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="autograder-early")
    for exercise_id, answer in answers.items():
        try:
            load(exercise_id)
        except KeyError:
            continue
        key = _source_key(exercise_id, answer.source)
        _EARLY.setdefault(key, pool.submit(grade_source, exercise_id, answer.source, warm=True))
    pool.shutdown(wait=False)


def check_answer(exercise_id: str, shown=None, seed=None, source: str | None = None):
    """The check cell: grade the answer cell as last run in this kernel, show what the grader says.

    ``shown`` lists the checks to report (default: all); the others are hidden checks, counted in
    the score but never named. Instant feedback only. The score that counts is computed outside the kernel after submission,
    so during nbgrader's autograding this refuses to score (and fails, so a course whose config
    lost the grading step gives 0 instead of trusting the kernel).
    """
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        print(AUTOGRADE_NOTE)
        raise NotPassed("not scored in the kernel; see your feedback for the course grader's result.")
    if source is None:
        source = _latest_answer_in_history(exercise_id)
    if source is None:
        raise NotPassed(f"run your answer cell for {exercise_id} first (the cell that starts with "
                        f"`# ANSWER {exercise_id}:`), then this cell.")
    from autograder.learner import remote

    if remote.configured():  # classroom mode: only the course's grading service can read the masters
        verdict = remote.grade_answer(exercise_id, source)
        print(verdict.text)
        if not verdict.passed:
            raise NotPassed(f"{exercise_id} scored {verdict.score}/{verdict.max_score}; the lines above say what to fix.")
        return None
    early = _EARLY.pop(_source_key(exercise_id, source), None) if seed is None else None
    try:
        result = early.result() if early is not None else None
    except Exception:  # noqa: BLE001 - the early grading failed: grade it now
        result = None
    if result is None:
        result = grade_source(exercise_id, source, seed=seed, warm=True)  # the kernel keeps its warm worker between checks
    hidden = [] if shown is None else [c.name for c in result.checks if c.name not in set(shown)]
    view = learner_view(result, hidden)
    print(render(view, context="checked in this notebook"))
    if not result.passed:
        raise NotPassed(f"{exercise_id} scored {view.score}/{view.max_score}; the lines above say what to fix.")
    return None


# -- running nbgrader for the instructor ---------------------------------------------------------

def nbgrader_environment(base: dict | None = None) -> dict:
    """The environment nbgrader needs: this Python's scripts first on PATH (nbgrader runs ``alembic``,
    kernels start as ``python``), and ``autograder`` importable in nbgrader and in its kernels."""
    env = dict(os.environ if base is None else base)
    scripts = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([scripts] + ([env["PATH"]] if env.get("PATH") else []))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def nbgrader(course: Path, *args: str) -> int:
    """Run ``nbgrader ARGS`` in the course directory with this Python; ``autograder`` importable in it and its kernels."""
    env = nbgrader_environment()
    command = [sys.executable, "-m", "nbgrader", *args]
    print("$ (cd " + str(course) + " && nbgrader " + " ".join(args) + ")", file=sys.stderr, flush=True)
    return subprocess.call(command, cwd=course, env=env)

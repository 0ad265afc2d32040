"""Lessons: every syllabus ID is a numbered heading in exactly one lesson, every lesson runs, and no
lesson asserts Dynamo's wording.

Lesson cells assert each count they state, so executing a lesson top to bottom is the test of its
claims (marked slow: it runs in CI in its own group). What a torch release may change is a named
drift alarm (autograder/sandbox/probe/drift.py), never a bare assert on a message.

The cells that only run an exercise's starting file or grade it (`!{sys.executable} ../exercises/...`,
with whatever arguments and pipes follow, and `check("...")`) are replaced by a comment here: what they show is proven for every exercise by
tests/test_exercises.py (each starter fails for its declared reason, each solution passes), and
tests/test_browser.py runs lesson 1 with its exercise cells in JupyterLab. Grading the exercises
again inside the lesson kernels cost most of this test's time.
"""

import ast
import functools
import json
import os
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from autograder.format.build import syllabus_ids
from autograder.format.exercise import discover, lesson_files, lesson_for
from conftest import ROOT

LESSONS = lesson_files()
HEADING = re.compile(r"^# #{2,6} (\d+(?:\.\d+)+) ", re.M)
# A cell that grades an exercise, or runs its file (with arguments, a pipe, tlparse after it): `!... ../exercises/...py ...`.
EXERCISE_LINE = re.compile(r'^(check\("[a-z0-9_]+"\)|!.*\.\./exercises/\S+\.py\b.*)$')


def stub_exercise_cells(notebook) -> int:
    """Replace each code cell made only of exercise run/check lines by a comment; return how many."""
    count = 0
    for cell in notebook.cells:
        lines = [line.strip() for line in cell.source.splitlines() if line.strip() and not line.strip().startswith("#")]
        if cell.cell_type == "code" and lines and all(EXERCISE_LINE.match(line) for line in lines):
            cell.source = "# exercise cell: graded by tests/test_exercises.py"
            count += 1
    return count


def headings(path):
    return HEADING.findall(path.read_text())


def chapter_of(lesson: Path) -> str:
    return str(int(lesson.name[:2]))


def test_there_is_a_lesson_for_every_chapter_with_exercises():
    for exercise in discover():
        lesson = exercise.lesson
        assert lesson in LESSONS, f"{exercise.id}: no lesson for chapter {exercise.chapter}"
        assert exercise.section in headings(lesson) or any(s.startswith(exercise.section + ".") for s in headings(lesson)) \
            or exercise.section.rsplit(".", 1)[0] in headings(lesson), f"{exercise.id}: section {exercise.section} is not in {lesson.name}"


def test_each_syllabus_id_is_a_heading_in_exactly_one_lesson():
    counts = Counter(sid for lesson in LESSONS for sid in headings(lesson))
    known = {sid: title for sid, title, _ in syllabus_ids()}
    assert not [sid for sid in counts if sid not in known], "headings with IDs outside the syllabus"
    assert not [sid for sid, n in counts.items() if n > 1], "an ID is a heading more than once"
    for chapter in sorted({chapter_of(lesson) for lesson in LESSONS}):
        wanted = [sid for sid in known if sid.split(".")[0] == chapter]
        missing = [sid for sid in wanted if sid not in counts]
        assert not missing, f"chapter {chapter}'s lessons lack numbered sections for {missing}"
        for lesson in (p for p in LESSONS if chapter_of(p) == chapter):
            assert all(sid.split(".")[0] == chapter for sid in headings(lesson)), f"{lesson.name} has another chapter's section"


def test_the_exercise_lesson_lookup_follows_the_headings_of_a_split_chapter():
    part_one, part_two = ROOT / "lessons" / "02a_graph_breaks.py", ROOT / "lessons" / "02b_fullgraph_false.py"
    assert lesson_for("02_graph_breaks", "2.1.1") == part_one and lesson_for("02_graph_breaks", "2.4") == part_one
    assert lesson_for("02_graph_breaks", "2.5.3.2") == part_two and lesson_for("02_graph_breaks", "2.5") == part_two
    assert lesson_for("02_graph_breaks", "2.5.9.9") == part_two, "an unknown subsection goes to its parent's lesson"
    assert lesson_for("01_dynamo_core", "1.3") == ROOT / "lessons" / "01_dynamo_core.py"
    by_id = {e.id: e for e in discover()}
    assert by_id["breaks_iterator"].lesson == part_one and by_id["isolate_skip"].lesson == part_two
    from autograder.classroom.nbgrader_bridge import chapter_title

    assert chapter_title("02_graph_breaks") == "2 Working with graph breaks"  # the chapter, not its first part
    assert chapter_title("01_dynamo_core") == "1 Dynamo core concepts"


def test_lessons_keep_no_outputs_and_no_pasted_images():
    for lesson in LESSONS:
        text = lesson.read_text()
        assert "data:image" not in text, f"{lesson.name}: images are files, not pasted blobs"
    ignored = (ROOT / ".gitignore").read_text()
    assert "lessons/*.ipynb" in ignored, "generated notebooks (with outputs) must stay out of git"


def test_lessons_are_valid_python_files_with_no_empty_first_cell():
    import jupytext

    for lesson in LESSONS:
        compile(lesson.read_text(), str(lesson), "exec")  # shell lines are commented magics (# !...)
        notebook = jupytext.read(lesson)
        first = notebook.cells[0]
        assert first.source.strip(), f"{lesson.name} starts with an empty cell"
        assert first.cell_type == "markdown" and first.source.startswith("# "), f"{lesson.name} starts with its title"


def prose(text: str) -> str:
    """The lesson's comment text as one line: what the reader sees, without line breaks."""
    return " ".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.splitlines()
                    if line.startswith("#")).replace("  ", " ")


def test_every_lesson_has_objectives_exercise_headings_and_a_summary():
    for lesson in LESSONS:
        text = lesson.read_text()
        assert "By the end you will be able to" in prose(text), f"{lesson.name}: no learning objectives"
        assert re.search(r"^# ## Summary", text, re.M), f"{lesson.name}: no summary"
        mentioned = [e for e in discover() if e.lesson == lesson]
        for exercise in mentioned:
            heading = re.search(rf"^# ###+ Exercises?:.*\b{exercise.id}\b.*\n((?:#.*\n)+)", text, re.M)
            assert heading, f"{lesson.name}: exercise {exercise.id} has no '### Exercise:' heading"
            assert len(heading[1].strip("#\n ").split()) >= 8, f"{lesson.name}: {exercise.id}'s heading has no task sentence"


# -- no lesson asserts Dynamo's wording ---------------------------------------------------------------

# Where torch.compile's messages come from: the compiler's packages (their string literals) and the
# C++ extension (guards, the fake-tensor and dispatcher errors).
MESSAGE_SOURCES = ["_dynamo", "_inductor", "fx", "_subclasses", "_functorch", "_higher_order_ops", "_library", "_logging",
                   "compiler", "_export", "_guards.py", "library.py", "_ops.py", "nn/modules/module.py"]


@functools.lru_cache(maxsize=1)
def _torch_text() -> tuple[str, bytes, frozenset]:
    """Everything torch.compile could print: the string literals of its Python sources, its C++
    extension's strings, and the graph-break registry (every break type, explanation and hint)."""
    import io
    import tokenize

    import torch

    root = Path(torch.__file__).parent
    files = [f for name in MESSAGE_SOURCES for f in ([root / name] if (root / name).is_file() else (root / name).rglob("*.py"))]
    literals = []
    for path in files:
        try:
            tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8", errors="replace")).readline)
            literals += [token.string for token in tokens if token.type == tokenize.STRING]
        except (tokenize.TokenError, SyntaxError):
            continue
    sources = "\n".join(literals)
    native = b"".join(p.read_bytes() for p in (root / "lib").glob("libtorch_python*"))
    registry = json.loads((root / "_dynamo" / "graph_break_registry.json").read_text())
    phrases = {text for versions in registry.values() for version in versions
               for text in [version.get("Gb_type", ""), version.get("Explanation", ""), *version.get("Hints", [])]
               if len(text) >= 16}
    return sources, native, frozenset(phrases)


def asserted_strings(source: str):
    """(line, text) of every string constant inside an ``assert`` statement of ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    yield inner.lineno, inner.value


def is_message_text(text: str, sources: str, native: bytes, phrases: set) -> bool:
    """A piece of wording torch prints: words (a space, at least 8 characters) found in a string
    literal of the compiler's code or in its C++ extension, or a string that contains a whole
    registered break type, explanation or hint."""
    if len(text) >= 8 and " " in text.strip() and (text in sources or text.encode() in native):
        return True
    return any(phrase in text for phrase in phrases)


def test_no_lesson_asserts_an_exact_dynamo_message():
    sources, native, phrases = _torch_text()
    found = []
    for lesson in LESSONS:
        for line, text in asserted_strings(lesson.read_text()):
            if is_message_text(text, sources, native, phrases):
                found.append(f"{lesson.name}:{line}: {text!r}")
    assert found == [], ("assert what a message means (its gb id, the guard kind), or name a drift alarm "
                         "(autograder/sandbox/probe/drift.py):\n" + "\n".join(found))


def test_the_message_scan_can_fail():
    sources, native, phrases = _torch_text()
    bad = ('message = "x"\nassert message == "Failed to trace builtin operator"\n'
           'assert "size mismatch at index" in reason\nassert brk.gb_id == "GB0059"\nassert "alpha" in reason\n')
    flagged = [text for _, text in asserted_strings(bad) if is_message_text(text, sources, native, phrases)]
    assert flagged == ["Failed to trace builtin operator", "size mismatch at index"]


def test_every_drift_alarm_a_lesson_names_exists():
    from autograder.sandbox.probe.drift import ALARMS

    named = []
    for lesson in LESSONS:
        for node in ast.walk(ast.parse(lesson.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "drift":
                assert node.args and isinstance(node.args[0], ast.Constant), f"{lesson.name}:{node.lineno}: drift() takes the alarm's name"
                named.append((lesson.name, node.args[0].value))
    unknown = [f"{lesson}: {name!r}" for lesson, name in named if name not in ALARMS]
    assert named and unknown == []


# -- every lesson runs ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs_top_to_bottom(lesson, tmp_path, monkeypatch):
    import sys

    import jupytext
    import nbclient

    # A kernel bound to this interpreter, ahead of any user-level "python3" that may point elsewhere.
    spec = tmp_path / "kernels" / "course-python"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "course", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    # The kernel imports this checkout's autograder, even where the environment's editable install
    # points at another one (a second worktree sharing one .venv).
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + (":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
    notebook = jupytext.read(lesson)
    stubbed = stub_exercise_cells(notebook)
    exercises = [e for e in discover() if e.lesson == lesson]
    assert stubbed >= len(exercises), "every exercise has a run or check cell in its lesson"
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="course-python",
                                     resources={"metadata": {"path": str(lesson.parent)}})
    started = time.perf_counter()
    client.execute()
    print(f"{lesson.name}: ran in {time.perf_counter() - started:.0f} s")
    noisy = [(index, output.get("text", "")[:200]) for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"
             for output in cell.get("outputs", []) if output.get("name") == "stderr"]
    assert noisy == [], f"{lesson.name}: cells write to stderr (warnings, profiler or compiler noise): {noisy[:3]}"

"""Lessons: every syllabus ID is a numbered heading in exactly one lesson, and every lesson runs.

Lesson cells assert each count they state, so executing a lesson top to bottom is the test of its
claims (marked slow: it runs in CI in its own group).

The cells that only run an exercise's starting file or grade it (`!{sys.executable} ../exercises/...`,
`check("...")`) are replaced by a comment here: what they show is proven for every exercise by
tests/test_exercises.py (each starter fails for its declared reason, each solution passes), and
tests/test_browser.py runs lesson 1 with its exercise cells in JupyterLab. Grading 25 exercises
again inside the lesson kernels cost most of this test's time.
"""

import re
from collections import Counter

import pytest

from autograder.format.build import syllabus_ids
from autograder.format.exercise import discover
from conftest import ROOT

LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
HEADING = re.compile(r"^# #{2,6} (\d+(?:\.\d+)+) ", re.M)
EXERCISE_LINE = re.compile(r'^(check\("[a-z0-9_]+"\)|!\{sys\.executable\} \.\./exercises/\S+\.py( 2>&1 \| tail -n \d+)?)$')


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


def test_there_is_a_lesson_for_every_chapter_with_exercises():
    chapters = {e.chapter for e in discover()}
    assert chapters <= {p.stem for p in LESSONS}


def test_each_syllabus_id_is_a_heading_in_exactly_one_lesson():
    counts = Counter(sid for lesson in LESSONS for sid in headings(lesson))
    known = {sid: title for sid, title, _ in syllabus_ids()}
    assert not [sid for sid in counts if sid not in known], "headings with IDs outside the syllabus"
    assert not [sid for sid, n in counts.items() if n > 1], "an ID is a heading more than once"
    for lesson in LESSONS:
        chapter = str(int(lesson.stem[:2]))
        wanted = [sid for sid in known if sid.split(".")[0] == chapter]
        missing = [sid for sid in wanted if sid not in counts]
        assert not missing, f"{lesson.name} lacks numbered sections for {missing}"


def test_lessons_keep_no_outputs_and_no_pasted_images():
    for lesson in LESSONS:
        text = lesson.read_text()
        assert "data:image" not in text, f"{lesson.name}: images are files, not pasted blobs"
    ignored = (ROOT / ".gitignore").read_text()
    assert "lessons/*.ipynb" in ignored, "generated notebooks (with outputs) must stay out of git"


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs_top_to_bottom(lesson, tmp_path, monkeypatch):
    import json
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
    notebook = jupytext.read(lesson)
    stubbed = stub_exercise_cells(notebook)
    exercises = [e for e in discover() if e.chapter == lesson.stem]
    assert stubbed >= len(exercises), "every exercise has a run or check cell in its lesson"
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="course-python",
                                     resources={"metadata": {"path": str(lesson.parent)}})
    client.execute()

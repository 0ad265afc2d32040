"""The learner's own copies of the lessons and exercises, in ``workspace/`` (ignored by git).

Why a workspace: the course's tracked files (``lessons/*.py``, ``exercises/``) must never change
under a learner, or ``git pull`` conflicts and ``git status`` fills with autosaves. So the learner
works in copies laid out exactly like the course::

    workspace/lessons/01_dynamo_core.ipynb      made from lessons/01_dynamo_core.py (not paired)
    workspace/lessons/README.md                 the course home page
    workspace/exercises/01_dynamo_core/ID.py    made from exercises/01_dynamo_core/ID.py
    workspace/exercises/README.md               the exercise index

Because the layout is the same, every relative link of a lesson (``../exercises/...``) and every
shell line it runs opens the learner's copy; a link to a file that has no copy (``lessons/NN.py``,
``docs/``) is rewritten to reach the course's file. A lesson's kernel runs in
``workspace/lessons/``, so what a lesson writes (``hidden.pt``, ``build/``, traces) lands in the
ignored folder too. ``check``, ``watch``, ``reset``, the notebook and the pytest plugin all grade
the copy (``working_copy``). A copy is made once and then belongs to the learner: it is never
overwritten, except by ``reset``, which keeps the old file as a backup.

No torch here: making the workspace must stay quick.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path

from autograder.format.exercise import EXERCISES, LESSONS, ROOT, Exercise, discover, lesson_files, starter_source

WORKSPACE = Path(os.environ.get("AUTOGRADER_WORKSPACE") or ROOT / "workspace")
BACKUPS = "backups"  # workspace/backups/: what reset replaced
_LINK = re.compile(r"(\[[^\]\n]*\]\()([^)\s]+)(\))")
_SOURCE_KEY = "course_source_sha256"  # notebook metadata: the lesson text the copy was made from


def lessons() -> list[Path]:
    """The lesson sources, in course order (chapter 2 has two: 02a_, 02b_)."""
    return lesson_files()


def lesson_notebook(lesson: Path) -> Path:
    return WORKSPACE / "lessons" / lesson.with_suffix(".ipynb").name


def working_copy(exercise: Exercise) -> Path:
    """Where the learner's copy of ``exercise`` lives (it may not exist yet; see ``ensure_copy``)."""
    return WORKSPACE / "exercises" / exercise.chapter / f"{exercise.id}.py"


def shown(path: Path) -> str:
    """A path as the learner types it: relative to the course folder when inside it."""
    path = Path(path)
    return path.relative_to(ROOT).as_posix() if path.is_absolute() and path.is_relative_to(ROOT) else str(path)


def edited_in_place(exercise: Exercise) -> bool:
    """Whether the course's starting file differs from what its master makes: a learner of the
    course before the workspace edited ``exercises/`` itself."""
    try:
        made = starter_source(exercise.master.read_text(encoding="utf-8"), exercise.id, exercise.title)
        return exercise.starter.read_text(encoding="utf-8") != made
    except (OSError, ValueError):
        return False


def ensure_copy(exercise: Exercise) -> Path:
    """The learner's copy, made the first time it is needed: from the starting file, or from the
    learner's own edits of it where they made them in ``exercises/`` (before there was a workspace)."""
    copy = working_copy(exercise)
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exercise.starter, copy)
    return copy


def adopted_edits(exercises: list[Exercise]) -> list[Exercise]:
    """The exercises whose copy was just made from the learner's edits in ``exercises/``."""
    return [e for e in exercises if edited_in_place(e) and working_copy(e).exists()
            and working_copy(e).read_bytes() == e.starter.read_bytes()]


def backup(path: Path) -> Path:
    """Move ``path`` into workspace/backups/, under a name with the time; returns the new path."""
    folder = WORKSPACE / BACKUPS
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{path.stem}.{stamp}{path.suffix}"
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{path.stem}.{stamp}-{number}{path.suffix}"
    shutil.move(str(path), target)
    return target


def reset_copy(exercise: Exercise) -> tuple[Path, Path | None]:
    """Put the starting file (as its master makes it) back as the learner's copy; the replaced copy is kept as a backup
    (none when it was missing or already the starting file). Returns (copy, backup or None)."""
    copy = working_copy(exercise)
    fresh = starter_source(exercise.master.read_text(encoding="utf-8"), exercise.id, exercise.title)
    kept = None
    if copy.exists() and copy.read_text(encoding="utf-8") != fresh:
        kept = backup(copy)
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(fresh, encoding="utf-8")
    return copy, kept


# -- links ---------------------------------------------------------------------------------------

def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target, start)).as_posix()


def _is_relative(target: str) -> bool:
    return not (re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")))


def relative_links(text: str) -> list[str]:
    """The targets of the Markdown links in ``text`` that name a file by a relative path (no anchor)."""
    return [match[2].partition("#")[0] for match in _LINK.finditer(text) if _is_relative(match[2])]


def relink(text: str, source: Path, copy: Path) -> str:
    """Rewrite the relative links of a document copied from ``source`` to ``copy``: a link keeps its
    text when the workspace has the file it names; a lesson text becomes its notebook; any other
    file of the course is reached by a path from the copy."""

    def fix(match):
        target = match[2]
        if not _is_relative(target):
            return match[0]  # a URL, an anchor or an absolute path: unchanged
        path, _, anchor = target.partition("#")
        anchor = f"#{anchor}" if anchor else ""
        if (copy.parent / path).exists():
            return match[0]
        original = (source.parent / path).resolve()
        if original in [lesson.resolve() for lesson in lessons()]:  # its notebook is made with the rest
            return f"{match[1]}{_relative(lesson_notebook(original), copy.parent)}{anchor}{match[3]}"
        if original.exists():
            return f"{match[1]}{_relative(original, copy.parent.resolve())}{anchor}{match[3]}"
        return match[0]

    return _LINK.sub(fix, text)


# -- the lesson notebooks --------------------------------------------------------------------------

def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _notebook_text(lesson: Path, notebook: Path) -> str:
    import jupytext

    nb = jupytext.read(lesson)
    # A working copy, not a paired notebook: saving it must never write lessons/*.py.
    nb.metadata.pop("jupytext", None)
    nb.metadata[_SOURCE_KEY] = _sha(lesson)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = relink(cell.source, lesson, notebook)
    return jupytext.writes(nb, fmt="ipynb")


def made_from(notebook: Path) -> str:
    """The hash of the lesson text a notebook copy was made from ("" when unknown)."""
    try:
        return json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get(_SOURCE_KEY, "")
    except (OSError, ValueError):
        return ""


def stale_lessons() -> list[Path]:
    """Lessons whose text changed (a ``git pull``) since the learner's notebook was made from it."""
    return [lesson for lesson in lessons()
            if lesson_notebook(lesson).exists() and made_from(lesson_notebook(lesson)) not in ("", _sha(lesson))]


def reset_lesson(lesson: Path) -> tuple[Path, Path | None]:
    """Make the lesson's notebook afresh from its text; the old notebook is kept as a backup."""
    notebook = lesson_notebook(lesson)
    kept = backup(notebook) if notebook.exists() else None
    notebook.parent.mkdir(parents=True, exist_ok=True)
    notebook.write_text(_notebook_text(lesson, notebook), encoding="utf-8")
    return notebook, kept


def find_lesson(name: str) -> Path | None:
    """A lesson by its file name, stem or number: "01_dynamo_core", "01", "1"."""
    for lesson in lessons():
        if name in (lesson.name, lesson.stem, lesson.with_suffix(".ipynb").name) or (
                name.isdigit() and int(name) == int(lesson.stem[:2])):
            return lesson
    return None


# -- the whole workspace ---------------------------------------------------------------------------

def prepare(exercises: list[Exercise] | None = None) -> list[Path]:
    """Make every missing copy: exercises, lesson notebooks, the two index pages. Returns what was made."""
    exercises = discover() if exercises is None else exercises
    made = []
    for exercise in exercises:
        if not working_copy(exercise).exists():
            made.append(ensure_copy(exercise))
    for lesson in lessons():
        notebook = lesson_notebook(lesson)
        if not notebook.exists():
            notebook.parent.mkdir(parents=True, exist_ok=True)
            notebook.write_text(_notebook_text(lesson, notebook), encoding="utf-8")
            made.append(notebook)
    # The index pages are the course's, not the learner's: always current, never edited.
    for source, copy in ((LESSONS / "README.md", WORKSPACE / "lessons" / "README.md"),
                         (EXERCISES / "README.md", WORKSPACE / "exercises" / "README.md")):
        if source.exists():
            text = relink(source.read_text(encoding="utf-8"), source, copy)
            if not copy.exists() or copy.read_text(encoding="utf-8") != text:
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(text, encoding="utf-8")
                made.append(copy)
    return made


def first_lesson() -> Path:
    return lesson_notebook(lessons()[0])


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.learner.workspace``: what ``./course start`` runs before JupyterLab."""
    exercises = discover()
    made = prepare(exercises)
    adopted = adopted_edits([e for e in exercises if working_copy(e) in made])
    notebooks = [p for p in made if p.suffix == ".ipynb"]
    copies = [p for p in made if p.suffix == ".py"]
    if copies or notebooks:
        print(f"      your working copies: {len(notebooks)} lesson notebook(s) and {len(copies)} exercise file(s) "
              f"in {shown(WORKSPACE)}/ (git ignores it; the course's own files stay untouched)")
    if adopted:
        print(f"      your earlier edits of {len(adopted)} file(s) in exercises/ are now your copies in "
              f"{shown(WORKSPACE)}/exercises/; `git checkout -- exercises` puts the course's files back, so that "
              "`git pull` works")
    for lesson in stale_lessons():
        print(f"      note: {shown(lesson)} changed since your notebook was made; `./course reset {lesson.stem}` "
              f"makes it afresh (your notebook is kept in {shown(WORKSPACE / BACKUPS)}/)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

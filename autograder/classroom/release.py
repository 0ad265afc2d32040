"""The learner release of classroom mode: the course without its answers.

    python -m autograder classroom release --out build/learner [--git] [--service-url URL]

writes the lessons, the learners' starting files, the ``autograder`` package (the notebook
``check()`` and ``hint()``, the lesson toolkit) and the files to install them, and leaves out
``solutions/`` (the masters: the fixes, the grader's inputs, every hint), the tests and the
benchmarks (which carry fixes), and the instructor's docs. With no masters, nothing in a
learner's process can grade; ``check()`` and ``hint()`` go to the course's grading service
(``service.py``) when ``AUTOGRADER_SERVICE_URL`` is set, and the service keeps back each
exercise's last hint (it states the fix) unless it runs with ``--with-fix-hint``.

``--git`` makes ``--out`` a git repository with the release committed (a new commit each time the
release changes): push it to the branch an nbgitpuller link names (docs/INSTRUCTORS.md). Self-paced
mode is unchanged: a learner who clones the whole repository has the masters and grades locally.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from autograder.format.exercise import ROOT

INCLUDED = ("README.md", "SYLLABUS.md", "course", "pyproject.toml", "environment.yml", ".gitignore",
            "lessons", "exercises", "autograder")
_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".git", ".autograder"}
MARKER = "CLASSROOM.json"


def release_files() -> dict[str, Path]:
    """Release path -> the course file it copies (masters, tests and benchmarks never among them)."""
    files = {}
    for name in INCLUDED:
        path = ROOT / name
        if path.is_file():
            files[name] = path
        elif path.is_dir():
            for item in sorted(path.rglob("*")):
                rel = item.relative_to(ROOT)
                if item.is_file() and not item.is_symlink() and not (set(rel.parts) & _SKIP_PARTS) \
                        and item.suffix not in (".pyc", ".ipynb"):
                    files[rel.as_posix()] = item
    return files


def write_release(out: Path, service_url: str = "", git: bool = False) -> list[str]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = release_files()
    for existing in sorted(out.rglob("*"), reverse=True):  # a file the course dropped leaves the release too
        rel = existing.relative_to(out).as_posix()
        if rel.split("/")[0] == ".git" or rel == MARKER:
            continue
        if existing.is_file() and rel not in files:
            existing.unlink()
        elif existing.is_dir() and not any(existing.iterdir()):
            existing.rmdir()
    for rel, source in files.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    marker = {"mode": "classroom", "service_url": service_url,
              "note": "The masters (solutions/) are not part of this release: checks are graded by the course's grading "
                      "service. Set AUTOGRADER_SERVICE_URL to its address (the hub does this for you)."}
    (out / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    if git:
        _commit(out)
    return sorted(files) + [MARKER]


def _commit(out: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "course release", "GIT_AUTHOR_EMAIL": "release@localhost",
           "GIT_COMMITTER_NAME": "course release", "GIT_COMMITTER_EMAIL": "release@localhost"}

    def git(*args):
        return subprocess.run(["git", "-C", str(out), *args], env=env, capture_output=True, text=True, check=True)

    if not (out / ".git").exists():
        git("init", "-q", "-b", "main")
    git("add", "-A")
    if git("status", "--porcelain").stdout.strip():
        git("commit", "-q", "-m", "Learner release of the course (no solutions)")

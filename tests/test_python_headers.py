"""Root's public copy of Python's headers, which lets Inductor gradings run as a user of their own
where the interpreter's headers are closed to others (an interpreter under /root)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import python_headers
from autograder.sandbox.permissions import running_as_root

ROOT_ONLY = pytest.mark.skipif(not running_as_root(), reason="only root makes the public copy")


@pytest.fixture
def closed_headers(tmp_path, monkeypatch):
    """A fake interpreter's headers in a folder closed to others, and a parent for the copy."""
    closed = tmp_path / "home"
    include = closed / "include" / "python3.11"
    (include / "cpython").mkdir(parents=True)
    (include / "Python.h").write_text("#include \"cpython/object.h\"\n")
    (include / "cpython" / "object.h").write_text("/* the object layout */\n")
    closed.chmod(0o700)
    parent = tmp_path / "run"
    parent.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    monkeypatch.setattr(python_headers, "PARENTS", (str(parent),))
    monkeypatch.setattr(python_headers, "interpreter_headers", lambda: str(include))
    monkeypatch.setattr(python_headers, "_found", {})
    return include, parent


@ROOT_ONLY
def test_the_copy_is_roots_readable_by_all_and_the_same(closed_headers):
    include, parent = closed_headers
    copy = Path(python_headers.readable_copy())
    assert copy.is_relative_to(parent / python_headers.FOLDER_NAME) and copy.name == "python3.11"
    for path in [copy, *copy.rglob("*")]:
        info = path.lstat()
        assert info.st_uid == 0 and not info.st_mode & 0o022 and info.st_mode & 0o004, path
    assert (copy / "cpython" / "object.h").read_text() == (include / "cpython" / "object.h").read_text()
    python_headers._found.clear()
    assert python_headers.readable_copy() == str(copy), "found again, not made again"


@ROOT_ONLY
@pytest.mark.parametrize("change", ["rewritten", "writable", "foreign", "link", "extra"])
def test_a_copy_that_is_not_roots_untouched_copy_is_refused(closed_headers, change):
    """A header another grading could have written would be compiled into later gradings' C++."""
    include, parent = closed_headers
    copy = Path(python_headers.readable_copy())
    target = copy / "cpython" / "object.h"
    if change == "rewritten":
        target.write_text("/* the object layou! */\n")  # same size
    elif change == "writable":
        target.chmod(0o666)
    elif change == "foreign":
        os.chown(copy.parent, 65534, 65534)
    elif change == "link":
        target.unlink()
        target.symlink_to(include / "cpython" / "object.h")
    else:
        (copy / "planted.h").write_text("")
    python_headers._found.clear()
    assert python_headers.readable_copy() is None


@ROOT_ONLY
def test_a_top_folder_made_by_someone_else_is_refused(closed_headers):
    include, parent = closed_headers
    top = parent / python_headers.FOLDER_NAME
    top.mkdir(mode=0o755)
    os.chown(top, 65534, 65534)
    assert python_headers.readable_copy() is None


def test_headers_others_can_read_are_used_as_they_are(monkeypatch):
    import shutil
    import tempfile

    base = tempfile.mkdtemp(dir="/tmp")
    try:
        os.chmod(base, 0o755)
        include = Path(base) / "include"
        include.mkdir(mode=0o755)
        (include / "Python.h").write_text("")
        (include / "Python.h").chmod(0o644)
        monkeypatch.setattr(python_headers, "interpreter_headers", lambda: str(include))
        monkeypatch.setattr(python_headers, "_found", {})
        assert python_headers.readable_copy() == str(include)
    finally:
        shutil.rmtree(base)


def test_use_points_sysconfig_and_inductor_at_the_copy(tmp_path):
    script = f"""
import sysconfig
stdlib = sysconfig.get_path("stdlib")
from autograder.sandbox import python_headers
python_headers.use({str(tmp_path)!r})
assert sysconfig.get_path("include") == {str(tmp_path)!r}
assert sysconfig.get_path("include", scheme="posix_prefix") == {str(tmp_path)!r}
assert sysconfig.get_paths()["platinclude"] == {str(tmp_path)!r}
assert sysconfig.get_path("stdlib") == stdlib
from torch._inductor.cpp_builder import _get_python_include_dirs
assert _get_python_include_dirs() == [{str(tmp_path)!r}]
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]

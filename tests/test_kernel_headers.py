"""Inductor's precompiled header, built once by the warm worker as root and only read by gradings
(``sandbox/kernel_headers.py``): a grading's kernels include it, no grading builds or changes it,
a request it was not built for compiles without it, and the checks that time compiling never use it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import identity, kernel_headers
from autograder.sandbox.permissions import running_as_root

ROOT = Path(__file__).resolve().parent.parent
EVERY_GRADING_DROPS = pytest.mark.skipif(not running_as_root() or identity.some_grading_keeps_root() is not None,
                                         reason="the header is shared only where every grading drops root")

# Runs in a fresh interpreter: what the warm worker does, then a grading forked from it that drops
# to nobody, compiles with Inductor, and tries to change the header.
GRADING = r"""
import os, sys, tempfile
import torch, html.entities, networkx
import torch._inductor.compile_fx, torch._inductor.graph, torch._inductor.scheduler, torch._inductor.async_compile
import torch._inductor.codegen.cpp, torch._inductor.codegen.cpp_wrapper_cpu
from autograder.sandbox import kernel_headers, python_headers, probe
probe.check_cpu_for_inductor()
assert kernel_headers.prepare() is None
folder = os.path.join(kernel_headers.PARENTS[0], kernel_headers.FOLDER_NAME)
def listing():
    return sorted((name, os.stat(os.path.join(folder, name)).st_mtime_ns) for name in os.listdir(folder))
before = listing()
pid = os.fork()
if pid == 0:
    code = 1
    try:
        copy = python_headers.readable_copy()
        if copy != python_headers.interpreter_headers():
            python_headers.use(copy)
        scratch = tempfile.mkdtemp()
        os.chown(scratch, 65534, 65534)
        os.setgid(65534); os.setuid(65534)
        from autograder.sandbox.identity import compile_caches_in
        compile_caches_in(scratch)
        probe.private_compile_caches()
        torch._inductor.config.compile_threads = 1
        def f(x):
            return (x.sin() * 3 + x.cos()).relu().sum(0)
        x = torch.randn(64, 33)
        assert torch.allclose(torch.compile(f, backend="inductor")(x), f(x), atol=1e-5)
        assert kernel_headers.answered["prebuilt"] >= 1 and kernel_headers.answered["without"] == 0, kernel_headers.answered
        # A request with other flags gets no header, and nothing is built for it.
        assert kernel_headers._prebuilt_only("torch/csrc/inductor/cpp_prefix.h", "g++ -O0 other flags", min_optimize=True) is None
        # The compile-time checks compile without it.
        seen = dict(kernel_headers.answered)
        probe.cold_compile(lambda x: (x * 2).tanh().sum(1), [(torch.randn(8, 5),)], "inductor")
        assert kernel_headers.answered == seen, (seen, kernel_headers.answered)
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            inside = path if os.path.isdir(path) else folder
            change = (lambda: os.rmdir(path)) if os.path.isdir(path) else (lambda: open(path, "ab"))
            for attempt in (change, lambda: os.rename(path, path + ".old"), lambda: open(os.path.join(inside, "planted.h"), "w")):
                try:
                    attempt()
                except PermissionError:
                    continue
                raise AssertionError(f"a grading changed {path}")
        code = 0
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        os._exit(code)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
assert listing() == before, "the grading built or changed something in the header's folder"
print("ok")
"""


@EVERY_GRADING_DROPS
def test_a_grading_includes_the_prebuilt_header_and_cannot_change_it():
    run = subprocess.run([sys.executable, "-c", GRADING], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), (run.stdout[-2000:], run.stderr[-4000:])


def test_nothing_is_shared_where_a_grading_may_keep_root(monkeypatch):
    monkeypatch.setattr(kernel_headers, "_known", {})
    monkeypatch.setattr(identity, "some_grading_keeps_root", lambda: "AUTOGRADER_DROP_PRIVILEGES=0")
    assert kernel_headers.prepare() == "AUTOGRADER_DROP_PRIVILEGES=0"
    assert kernel_headers.use_prebuilt() is False


def test_the_switch_turns_it_off(monkeypatch):
    monkeypatch.setattr(kernel_headers, "_known", {})
    monkeypatch.setenv(kernel_headers.SWITCH, "0")
    assert kernel_headers.prepare() == f"{kernel_headers.SWITCH}=0"
    assert kernel_headers.use_prebuilt() is False


@pytest.mark.skipif(not running_as_root(), reason="ownership by root is what is checked")
@pytest.mark.parametrize("change", ["none", "foreign_folder", "writable_header", "linked_header", "elsewhere"])
def test_a_header_not_roots_alone_is_not_used(tmp_path, monkeypatch, change):
    """A file someone else could have written would be compiled into every later grading's kernels."""
    parent = tmp_path / "run"
    parent.mkdir(mode=0o755)
    monkeypatch.setattr(kernel_headers, "PARENTS", (str(parent),))
    folder = parent / kernel_headers.FOLDER_NAME
    folder.mkdir(mode=0o755)
    header = folder / "abc.h"
    header.write_text("#include <torch/csrc/inductor/cpp_prefix.h>\n")
    compiled = folder / "abc.h.gch"
    compiled.write_bytes(b"gch")
    for path in (header, compiled):
        path.chmod(0o644)
    path = str(header)
    if change == "foreign_folder":
        os.chown(folder, 65534, 65534)
    elif change == "writable_header":
        compiled.chmod(0o666)
    elif change == "linked_header":
        compiled.unlink()
        (tmp_path / "real.gch").write_bytes(b"gch")
        compiled.symlink_to(tmp_path / "real.gch")
    elif change == "elsewhere":
        path = str(tmp_path / "abc.h")
    found = kernel_headers._public_folder()
    sound = found is not None and kernel_headers._sound(found, path)
    assert sound == (change == "none")


# A grader that is not root (a learner's own machine): shared among that learner's gradings only
# with AUTOGRADER_KERNEL_HEADERS=own, which ./course sets. Simulated here by a root process that
# believes it is not root: the ownership rules are the same, with its own user in root's place.
OWN = r"""
import os, tempfile
import torch
from autograder.sandbox import kernel_headers, permissions, probe
permissions.running_as_root = lambda: False
probe.check_cpu_for_inductor()
os.environ.pop(kernel_headers.SWITCH, None)
assert "not root" in kernel_headers.prepare()
assert not kernel_headers.ready()
os.environ[kernel_headers.SWITCH] = "own"
assert kernel_headers.prepare() is None, "own"
import torch._inductor.codecache as codecache
assert all(os.path.dirname(path) == codecache._HEADER_DIR for path in kernel_headers._known.values())
pid = os.fork()
if pid == 0:
    code = 1
    try:
        from autograder.sandbox.identity import compile_caches_in
        compile_caches_in(tempfile.mkdtemp())
        probe.private_compile_caches()
        torch._inductor.config.compile_threads = 1
        f = lambda x: (x.exp() - x).abs().amax(1)
        x = torch.randn(16, 40)
        assert torch.allclose(torch.compile(f, backend="inductor")(x), f(x))
        assert kernel_headers.answered["prebuilt"] >= 1 and kernel_headers.answered["without"] == 0, kernel_headers.answered
        code = 0
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        os._exit(code)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
print("ok")
"""


@pytest.mark.skipif(not running_as_root(), reason="simulates a grader that is not root from a root process")
def test_a_learners_own_grader_shares_it_only_when_told_to():
    env = {k: v for k, v in os.environ.items() if k != kernel_headers.SWITCH}
    run = subprocess.run([sys.executable, "-c", OWN], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**env, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), (run.stdout[-2000:], run.stderr[-4000:])


@pytest.mark.skipif(not running_as_root(), reason="needs another user to own the folder")
def test_an_own_folder_someone_else_made_is_refused(tmp_path, monkeypatch):
    import torch._inductor.codecache as codecache

    parent = tmp_path / "torchinductor_learner"
    folder = parent / "precompiled_headers"
    folder.mkdir(parents=True)
    tmp_path.chmod(0o755)
    monkeypatch.setattr(codecache, "_HEADER_DIR", str(folder))
    for path in (parent, folder):
        path.chmod(0o755)
    assert kernel_headers._own_folder() == str(folder)
    os.chown(parent, 65534, 65534)  # another user made the folder first under /tmp
    assert kernel_headers._own_folder() is None
    os.chown(parent, 0, 0)
    folder.chmod(0o777)
    assert kernel_headers._own_folder() is None


@pytest.mark.skipif(not running_as_root(), reason="the shared folder is root's")
def test_a_failed_build_leaves_no_header_behind(tmp_path, monkeypatch):
    """A .gch cut short would break every later compile that includes it, and the next build would
    find it and take it as done."""
    parent = tmp_path / "run"
    parent.mkdir(mode=0o755)
    monkeypatch.setattr(kernel_headers, "PARENTS", (str(parent),))
    monkeypatch.setattr(kernel_headers, "_known", {})
    monkeypatch.setattr(identity, "some_grading_keeps_root", lambda: None)
    monkeypatch.setattr(kernel_headers, "_record_in_fork", lambda folder, timeout: None)
    folder = parent / kernel_headers.FOLDER_NAME
    folder.mkdir(mode=0o755)
    (folder / "abc.h").write_text("#include <x>\n")
    (folder / "abc.h.gch").write_bytes(b"cut sh")
    (folder / "locks").mkdir()
    assert kernel_headers.prepare() == "the throwaway build of the header failed"
    assert sorted(p.name for p in folder.iterdir()) == ["locks"]
    assert not kernel_headers.ready()


@pytest.mark.skipif(not running_as_root(), reason="the shared folder is root's")
def test_a_later_worker_reuses_the_record_only_while_it_is_sound(tmp_path, monkeypatch):
    """The warm worker restarts (a new `watch`, a new batch): the header built before is found through
    its record instead of a throwaway build, unless anything the calls depend on changed or someone
    else could have written the record."""
    parent = tmp_path / "run"
    parent.mkdir(mode=0o755)
    monkeypatch.setattr(kernel_headers, "PARENTS", (str(parent),))
    monkeypatch.setattr(identity, "some_grading_keeps_root", lambda: None)
    folder = parent / kernel_headers.FOLDER_NAME
    builds = []

    def fake_build(where, timeout):
        header = os.path.join(where, "prefix.h")
        Path(header).write_text("#pragma once\n")
        Path(header + ".gch").write_bytes(b"compiled")
        builds.append(where)
        return [("/inductor/cpp_prefix.h", "g++ -O3", {"isa": object(), "flags": ["-x"]}, header)]

    def fresh_worker():
        monkeypatch.setattr(kernel_headers, "_known", {})
        return kernel_headers.prepare()

    monkeypatch.setattr(kernel_headers, "_record_in_fork", fake_build)
    monkeypatch.setattr(kernel_headers, "_fingerprint", lambda: {"torch": "2.13.0", "compiler": ["/usr/bin/g++", 1, 2]})
    assert fresh_worker() is None and len(builds) == 1
    assert fresh_worker() is None and len(builds) == 1, "a second worker built again"
    assert kernel_headers.ready()

    monkeypatch.setattr(kernel_headers, "_fingerprint", lambda: {"torch": "2.13.0", "compiler": ["/usr/bin/g++", 1, 3]})
    assert fresh_worker() is None and len(builds) == 2, "a record for another compiler was trusted"
    # Two installs of torch on one machine (a course's .venv and a CI clone's) each keep their own.
    monkeypatch.setattr(kernel_headers, "_fingerprint", lambda: {"torch": "2.13.0", "compiler": ["/usr/bin/g++", 1, 2]})
    assert fresh_worker() is None and len(builds) == 2, "the first install's build was forgotten"

    (folder / kernel_headers.RECORD_NAME).chmod(0o666)
    assert fresh_worker() is None and len(builds) == 3, "a record others could write was trusted"

    (folder / "prefix.h.gch").chmod(0o666)  # the record is sound, the header it names is not
    (folder / kernel_headers.RECORD_NAME).write_text("{not json")
    assert fresh_worker() == "the header built is not this grader's user's alone" and len(builds) == 4
    assert not kernel_headers.ready()


def test_options_compare_the_same_after_the_record_round_trip():
    import json

    options = {"isa": type("VecAVX512", (), {"__str__": lambda self: "avx512"})(), "flags": ["-O3", "-x"], "n": 1, "ok": True}
    plain = kernel_headers._plain(options)
    again = kernel_headers._plain(json.loads(json.dumps(plain)))
    assert kernel_headers._key("h", "cmd", options) == kernel_headers._key("h", "cmd", again) is not None


CPU_CHECK = """
import os
from autograder.sandbox.probe import check_cpu_for_inductor
check_cpu_for_inductor()
assert "autograder-inductor-cpu-check" not in os.environ.get("TORCHINDUCTOR_CACHE_DIR", ""), "the check left its folder as the cache"
print("ok")
"""


@pytest.mark.skipif(not running_as_root(), reason="the check runs as root only in a root grader")
def test_the_cpu_check_as_root_never_builds_in_a_folder_someone_else_made(tmp_path):
    """Inductor's check of the CPU builds test programs in its cache folder and runs each one it finds
    already built there; its default, ``$TMPDIR/torchinductor_root``, is a name any user may take
    first (a submission, beside another grading whose worker checks the CPU as root)."""
    squatted = tmp_path / "torchinductor_root"
    squatted.mkdir()
    squatted.chmod(0o777)
    os.chown(squatted, 65534, 65534)
    tmp_path.chmod(0o1777)
    env = {k: v for k, v in os.environ.items() if k != "TORCHINDUCTOR_CACHE_DIR"}
    run = subprocess.run([sys.executable, "-c", CPU_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**env, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)})
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-3000:]
    assert list(squatted.iterdir()) == [], "the check used a folder another user made"


"""Bad input gets a clear message and a result, never a crash or a hang of the grader."""

import time

import pytest

from autograder.sandbox.identity import _readable_by_others, closed_package_folder, packages_block_the_drop
from autograder.engine.clock import MAX_CREDIT
from autograder.engine.grader import grade
from conftest import ROOT

STARTER = (ROOT / "exercises/01_dynamo_core/breaks_checkpoint.py").read_text()
SOLUTION_BODY = "import torch, torch.nn.functional as F\n\ndef encode(x, weight):\n    h = torch.tanh(x @ weight)\n    return F.normalize(h, dim=-1), h\n"


@pytest.fixture(params=[False, True], ids=["cold", "warm"], autouse=True)
def mode(request, monkeypatch):
    """Every bad input is tried in a cold child and in a child forked from the warm worker."""
    monkeypatch.setenv("AUTOGRADER_WARM", "1" if request.param else "0")
    return request.param


@pytest.fixture(autouse=True)
def sandbox_only(monkeypatch):
    """These submissions test the sandbox itself (limits, the drop to nobody, the time limit, a
    crash): the static policy and the audit hook, which refuse most of them first, are switched
    off here. They are tested in test_scan_and_loader.py, test_audit.py and test_attacks.py."""
    from autograder.engine import grader

    monkeypatch.setitem(grader.DEFENCES, "policy", False)
    monkeypatch.setitem(grader.DEFENCES, "audit", False)


def _grade(path, **kw):
    result = grade("breaks_checkpoint", path, seed=3, **kw)
    assert not result.passed
    assert result.message, "every failed grade explains itself"
    return result


def test_syntax_error(submission):
    result = _grade(submission("def encode(x, weight)\n    return x\n"))
    assert result.status == "error" and "syntax error on line 1" in result.message


def test_missing_callable(submission):
    result = _grade(submission("import torch\n\ndef encoder(x, weight):\n    return x\n"))
    assert result.status == "error" and "`encode`" in result.message and "reset" in result.message


def test_exception_at_import_names_the_line(submission):
    result = _grade(submission("import torch\nx = 1 / 0\n"))
    assert result.status == "error" and "ZeroDivisionError" in result.message and "line 2" in result.message


def test_sys_exit_at_import(submission):
    result = _grade(submission("import sys\nsys.exit(0)\n"))
    assert result.status == "error" and "sys.exit" in result.message


def test_os_exit_at_import_is_reported_not_trusted(submission):
    result = _grade(submission("import os\nos._exit(0)\n"))
    assert result.status == "error" and "died" in result.message


def test_crash_of_the_interpreter(submission):
    result = _grade(submission("import ctypes\nctypes.string_at(0)\n"))
    assert result.status == "error" and "died" in result.message


def test_infinite_loop_hits_the_time_limit(submission):
    started = time.monotonic()
    result = _grade(submission(SOLUTION_BODY + "while True:\n    pass\n"), timeout=3)
    assert time.monotonic() - started < 3 * (1 + MAX_CREDIT) + 45  # more than 3 s only on a busy machine (engine/clock.py)
    assert result.status == "error" and "stopped after 3 s" in result.message


def test_infinite_loop_in_the_graded_function(submission):
    result = _grade(submission("import torch\n\ndef encode(x, weight):\n    while True:\n        x = x + 1\n"), timeout=3)
    assert result.status == "error"


def test_exception_inside_the_graded_function(submission):
    result = _grade(submission("import torch\n\ndef encode(x, weight):\n    return torch.sin(x, x)\n"))
    assert result.status == "failed"
    assert any(c.status == "failed" for c in result.checks)


def test_wrong_answer_compiles_but_is_not_correct(submission):
    result = _grade(submission(SOLUTION_BODY.replace("dim=-1), h", "dim=0), h")))
    by_name = {c.name: c for c in result.checks}
    assert by_name["compiles"].status == "passed" and by_name["correct"].status == "failed"
    assert "reference" in by_name["correct"].message


def test_non_utf8_file(submission):
    result = _grade(submission(b"def encode(x, w):\n    return '\xff'\n"))
    assert result.status == "error" and "UTF-8" in result.message


def test_huge_file(submission):
    result = _grade(submission("# padding\n" * 200_000))
    assert result.status == "error" and "limited" in result.message


def test_empty_file(submission):
    result = _grade(submission(""))
    assert result.status == "error" and "`encode`" in result.message


def test_huge_output_does_not_hurt(submission):
    result = grade("breaks_checkpoint", submission(SOLUTION_BODY + "print('x' * 5_000_000)\n"), seed=3)
    assert result.passed and len(result.output_tail) <= 10_000



def test_memory_bomb_is_stopped(submission):
    result = _grade(submission("blocks = []\nwhile True:\n    blocks.append(bytearray(256 << 20))\n"), timeout=60)
    assert result.status == "error"


def test_network_is_unreachable_where_the_platform_allows(submission):
    import os

    probe = SOLUTION_BODY + (
        "import socket\n"
        "try:\n    socket.create_connection(('127.0.0.1', 1), timeout=1)\nexcept OSError as exc:\n"
        "    print('NETWORK', type(exc).__name__, exc.errno)\n")
    result = grade("breaks_checkpoint", submission(probe), seed=3)
    if os.geteuid() == 0:  # a new network namespace: even loopback is down
        assert "NETWORK OSError 101" in result.output_tail or "Network is unreachable" in result.output_tail, result.output_tail


def test_huge_file_writes_are_cut_off(submission):
    result = _grade(submission(SOLUTION_BODY + "open('big.bin', 'wb').write(b'x' * (200 << 20))\n"))
    assert result.status == "error"


# -- the sandbox of a grading started by root (CI runs as root; elsewhere these are skipped) ----------

import os
import shutil
import sysconfig
import tempfile

as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or packages_block_the_drop() is not None,
                             reason="the grading child drops privileges only when the grader runs as root, "
                                    "and only where nobody can read torch and the autograder")


@as_root
def test_the_submission_runs_as_a_user_of_its_own(submission):
    import re

    from autograder.sandbox.identity import POOL_BASE, POOL_SIZE

    result = _grade(submission("import os\nraise RuntimeError(f'uid={os.getuid()} gid={os.getgid()} groups={os.getgroups()}')\n"))
    found = re.search(r"uid=(\d+) gid=(\d+) groups=\[\]", result.message)
    assert found and found[1] == found[2], result.message
    assert POOL_BASE <= int(found[1]) < POOL_BASE + POOL_SIZE  # one of the grading identities, not a shared nobody
    assert any(f"ran as uid {found[1]}" in item for item in result.extra["sandbox"]), result.extra
    assert {"cpu", "memory", "file size", "core"} <= set(result.extra["sandbox"])


@as_root
def test_a_root_only_file_cannot_be_read(submission):
    folder = tempfile.mkdtemp(prefix="autograder-secret-")
    try:
        os.chmod(folder, 0o755)
        secret = os.path.join(folder, "hidden_inputs.json")
        with open(secret, "w") as handle:
            handle.write('{"answer": 42}')
        os.chmod(secret, 0o600)
        result = _grade(submission(SOLUTION_BODY + f"\nprint(open({secret!r}).read())\n"))
        assert "PermissionError" in result.message and "answer" not in result.output_tail
    finally:
        __import__("shutil").rmtree(folder)


@as_root
def test_the_reference_solution_is_not_opened_after_the_drop(submission):
    """The child gets the master's text before it becomes nobody: a master readable only by root
    (as in the Gradescope setup) still grades, and the submission cannot open it."""
    master = ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py"
    probe = SOLUTION_BODY + (f"\ntry:\n    open({str(master)!r}).read()\n    print('MASTER READABLE')\n"
                             "except PermissionError:\n    print('MASTER HIDDEN')\n")
    result = grade("breaks_checkpoint", submission(probe), seed=3)
    assert result.passed, result.message
    hidden = not _readable_by_others(master)
    assert ("MASTER HIDDEN" if hidden else "MASTER READABLE") in result.output_tail, result.output_tail


@as_root
def test_an_unreadable_standard_module_is_named_not_a_raw_traceback(submission):
    result = grade("breaks_checkpoint", submission("import wave\n" + SOLUTION_BODY), seed=3)
    if _readable_by_others(sysconfig.get_paths()["stdlib"]):
        assert result.passed, result.message  # a readable interpreter: every module imports
    else:
        assert result.status == "error" and "not available in the grading sandbox" in result.message, result.message
        assert "`wave`" in result.message


def _processes_of(uid: int) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as handle:
                    status = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
            except OSError:
                continue
            if int(status.get("Uid", "-1 ").split()[0]) == uid and not status.get("State", "").strip().startswith("Z"):
                found.append(f"{entry} ({status.get('Name', '').strip()})")  # zombies hold nothing
    return found


@as_root
def test_a_fork_bomb_is_cut_off_and_leaves_nothing_behind(submission):
    """RLIMIT_NPROC binds once the child runs as the grading's own user: the bomb hits it, the wall
    limit ends the grading, every process of that user is killed, and the grader goes on."""
    bomb = SOLUTION_BODY + "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    started = time.monotonic()
    # A short limit: every process of the bomb spins until the grading ends, on every CPU of the machine.
    result = _grade(submission(bomb), timeout=4)
    assert time.monotonic() - started < 4 * (1 + MAX_CREDIT) + 60  # the limit, what others took of the CPUs, a cold start and the cleanup under load
    assert result.status == "error" and "stopped after 4 s" in result.message
    uid = result.extra["grading_uid"]
    deadline = time.monotonic() + 5
    while _processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_of(uid) == [], "processes of the grading survived it"
    assert grade("breaks_checkpoint", ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py", seed=3).passed


@as_root
def test_the_drop_can_be_switched_off_for_debugging_and_says_so(submission, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_DROP_PRIVILEGES", "0")
    result = _grade(submission("import os\nraise RuntimeError(f'uid={os.getuid()}')\n"))
    assert "uid=0" in result.message
    assert "privileges kept: AUTOGRADER_DROP_PRIVILEGES=0" in result.extra["sandbox"]


def test_a_course_in_a_folder_closed_to_others_is_graded_as_root_with_the_reason():
    # Dynamo imports parts of torch while compiling, after the drop: as nobody, a course under a
    # 0700 folder (a home folder, `mktemp -d`) failed every grading with ModuleNotFoundError.
    base = tempfile.mkdtemp()
    try:
        os.chmod(base, 0o755)
        if not _readable_by_others(os.path.dirname(base)):
            pytest.skip("the temporary folder's parent is closed to others here")
        for name, mode in (("open", 0o755), ("closed", 0o700)):
            os.makedirs(os.path.join(base, name, "torch"))
            os.chmod(os.path.join(base, name), mode)
        opened, closed = os.path.join(base, "open", "torch"), os.path.join(base, "closed", "torch")
        assert closed_package_folder([opened]) is None
        assert closed_package_folder([opened, closed]) == closed
    finally:
        shutil.rmtree(base, ignore_errors=True)


@as_root
def test_a_temporary_folder_closed_to_others_does_not_stop_the_grading(tmp_path, monkeypatch):
    # TMPDIR under a 0700 home folder: a grading's own user could not enter its work folder there
    # ("Permission denied: .../scratch", every grading an error). The work folder goes to /tmp
    # instead; where even that is closed, the grading keeps root and says why.
    import tempfile

    from autograder.engine import runner

    closed = tmp_path / "home"
    (closed / "tmp").mkdir(parents=True)
    closed.chmod(0o700)
    monkeypatch.setenv("TMPDIR", str(closed / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(closed / "tmp"))
    solution = ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py"
    result = grade("breaks_checkpoint", solution, seed=3)
    assert result.passed, result.message
    assert any(line.startswith("ran as uid") for line in result.extra["sandbox"]), result.extra["sandbox"]
    monkeypatch.setattr(runner, "work_folder_base", lambda: None)
    result = grade("breaks_checkpoint", solution, seed=3, warm=False)
    assert result.passed, result.message
    assert any("work folder" in line and "closed to others" in line for line in result.extra["sandbox"]), result.extra["sandbox"]

"""Bad input gets a clear message and a result, never a crash or a hang of the grader."""

import time

import pytest

from autograder.grader import grade
from conftest import ROOT

STARTER = (ROOT / "exercises/01_dynamo_core/breaks_checkpoint.py").read_text()
SOLUTION_BODY = "import torch, torch.nn.functional as F\n\ndef encode(x, weight):\n    h = torch.tanh(x @ weight)\n    return F.normalize(h, dim=-1), h\n"


@pytest.fixture(params=[False, True], ids=["cold", "warm"], autouse=True)
def mode(request, monkeypatch):
    """Every bad input is tried in a cold child and in a child forked from the warm worker."""
    monkeypatch.setenv("AUTOGRADER_WARM", "1" if request.param else "0")
    return request.param


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
    result = _grade(submission(SOLUTION_BODY + "while True:\n    pass\n"), timeout=8)
    assert time.monotonic() - started < 30
    assert result.status == "error" and "stopped after 8 s" in result.message


def test_infinite_loop_in_the_graded_function(submission):
    result = _grade(submission("import torch\n\ndef encode(x, weight):\n    while True:\n        x = x + 1\n"), timeout=10)
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

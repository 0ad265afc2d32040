"""The grading side (the warm worker, the judge, the sandbox) runs with only the variables
``runner._PASS_ENV`` lets through. A switch it reads but that is not let through is silently ignored
there: ``AUTOGRADER_TRUTH_CACHE=0`` once kept nothing from being kept, and the warm worker built the
shared kernel header although ``AUTOGRADER_DROP_PRIVILEGES=0`` kept gradings as root."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from autograder.engine import kept, runner
from autograder.sandbox import identity, kernel_headers

ROOT = Path(__file__).resolve().parent.parent

# Read by the grader in the parent process and handed to the judge in the job, never from the
# grading side's environment.
READ_BY_THE_PARENT = {
    "AUTOGRADER_DEFENCES_OFF": "grader.py puts the defences switched off into the job",
    "AUTOGRADER_WARM": "grader.py chooses warm or cold before any child starts",
    "AUTOGRADER_EXERCISES": "the job names the master and starter by path",
}


def _grading_side_modules() -> list[str]:
    """Every course module the warm worker has imported when it is ready to fork gradings."""
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "import autograder.engine.judge, autograder.engine.reference, autograder.engine.verdict\n"
        "import autograder.sandbox.child, autograder.sandbox.integrity, autograder.sandbox.kinds.all, autograder.sandbox.probe\n"
        "import autograder.sandbox.kernel_headers, autograder.sandbox.python_headers, autograder.engine.kept\n"
        "from autograder.checks.all import load_all\n"
        "load_all()\n"
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() if n.startswith('autograder') and getattr(m, '__file__', None))))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _switches_named_in(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.startswith("AUTOGRADER_") and node.value.replace("_", "").isalnum() and node.value.isupper()}


def test_every_switch_the_grading_side_reads_reaches_it():
    modules = _grading_side_modules()
    assert any(m.endswith("judge.py") for m in modules) and any(m.endswith("kept.py") for m in modules)
    named = {switch: path for path in modules if not path.endswith("runner.py") for switch in _switches_named_in(path)}
    assert {kept.SWITCH, identity.DROP_SWITCH, kernel_headers.SWITCH} <= set(named), "the scan found none of the known switches"
    missing = {switch: Path(path).relative_to(ROOT).as_posix() for switch, path in named.items()
               if switch not in runner._PASS_ENV and switch not in READ_BY_THE_PARENT}
    assert not missing, f"read on the grading side but never passed to it (runner._PASS_ENV): {missing}"


def test_the_switches_are_in_the_childs_environment(monkeypatch):
    monkeypatch.setenv(kept.SWITCH, "0")
    monkeypatch.setenv(identity.DROP_SWITCH, "0")
    monkeypatch.setenv("AUTOGRADER_SECRET_TOKEN", "x")
    env = runner.child_environment()
    assert env[kept.SWITCH] == "0" and env[identity.DROP_SWITCH] == "0"
    assert "AUTOGRADER_SECRET_TOKEN" not in env

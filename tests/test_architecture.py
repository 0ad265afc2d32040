"""Keep the engine's layering: one module measures, the front ends only call grade()."""

import ast

from conftest import ROOT

PACKAGE = ROOT / "autograder"


def touches_dynamo(path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr == "_dynamo":
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any("_dynamo" in n for n in names):
                return True
    return False


def test_only_the_probe_touches_dynamo():
    offenders = [p.name for p in PACKAGE.glob("*.py") if p.name != "probe.py" and touches_dynamo(p)]
    assert offenders == []
    assert touches_dynamo(PACKAGE / "probe.py")


def test_front_ends_are_thin_layers_over_grade():
    for name in ("cli.py", "notebook.py", "pytest_plugin.py"):
        text = (PACKAGE / name).read_text()
        assert "from .grader import grade" in text
        assert "import torch" not in text, f"{name} must not import torch (listing stays instant)"


def test_listing_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, autograder.cli as c; c.main(['list', '--json']); assert 'torch' not in sys.modules, 'torch imported'"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

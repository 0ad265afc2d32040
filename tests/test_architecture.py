"""Keep the engine's layering: the package layout is the architecture, and a test holds it.

Layers, lowest first (a module may import its own layer and the layers below, never above):
format (the exercise format, no torch) < sandbox (beside learner code; measures) < checks (decide)
< engine (trusted: grade(), runner, pool) < learner, authoring (front ends) < classroom < cli, lab
(composition roots: the command line, the lesson toolkit).
"""

import ast

from conftest import ROOT

PACKAGE = ROOT / "autograder"
RANK = {"format": 0, "sandbox": 1, "checks": 2, "engine": 3, "learner": 4, "authoring": 4, "classroom": 5,
        "cli": 6, "lab": 6, "__init__": 6, "__main__": 7}


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(path) -> set[str]:
    """Every autograder module ``path`` imports, at any depth of the file (lazy imports count)."""
    found = set()
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("autograder")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("autograder"):
                found |= {f"{base}.{a.name}" if (PACKAGE.parent / (f"{base}.{a.name}".replace(".", "/") + ".py")).exists()
                          or (PACKAGE.parent / f"{base}.{a.name}".replace(".", "/")).is_dir() else base for a in node.names}
    return found - {own}


def modules():
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


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
    probe = PACKAGE / "sandbox" / "probe"
    offenders = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if probe not in p.parents and touches_dynamo(p)]
    assert offenders == []
    assert touches_dynamo(probe / "measurement.py")


# Upward edges allowed as exceptions (none: the checks decide in the judge, never beside learner code);
# test_known_exceptions_are_real keeps the list from going stale when one is added.
KNOWN_UPWARD: set[tuple[str, str]] = set()


def upward_imports() -> set[tuple[str, str]]:
    every = modules()
    return {(name, target) for name, path in every.items() for target in imports(path)
            if target in every and RANK[layer(target)] > RANK[layer(name)]}


def test_known_exceptions_are_real():
    assert KNOWN_UPWARD <= upward_imports()


def test_no_layer_imports_a_higher_one():
    every = modules()
    assert set(map(layer, every)) <= set(RANK), f"a new top-level module or package needs a rank: {set(map(layer, every)) - set(RANK)}"
    upward = sorted(f"{name} ({layer(name)}) imports {target} ({layer(target)})" for name, target in upward_imports() - KNOWN_UPWARD)
    assert upward == []


def reachable(start: str) -> set[str]:
    """Every autograder module ``start`` imports, directly or through others (lazy imports count)."""
    every = modules()
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current in seen or current not in every:
            continue
        seen.add(current)
        todo += [t for t in imports(every[current]) if t in every]
    return seen - {start}


def test_the_learner_child_imports_only_sandbox_and_format():
    # What runs beside learner code must not even have the deciding code loaded: checks, engine and
    # everything above are the judge's.
    layers = {layer(name) for name in reachable("autograder.sandbox.child")}
    assert layers <= {"sandbox", "format"}, sorted(n for n in reachable("autograder.sandbox.child") if layer(n) not in ("sandbox", "format"))


def test_checks_do_not_import_the_sandbox():
    # Deciding works on plain data; what measures (the probe, the kinds' run parts) is never loaded by a decision.
    offenders = sorted(f"{name} imports {target}" for name, path in modules().items() if layer(name) == "checks"
                       for target in imports(path) if layer(target) == "sandbox")
    assert offenders == []


LOADERS = {"exec_module", "spec_from_file_location", "run_path", "import_module"}  # called as functions or methods
BUILTIN_LOADERS = {"__import__", "exec", "eval", "compile"}  # the builtins (``re.compile`` is no loader)


def _loads_code(path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            attribute = node.func.attr if isinstance(node.func, ast.Attribute) else None
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if attribute in LOADERS or name in LOADERS | BUILTIN_LOADERS:
                found.append(f"{path.relative_to(ROOT).as_posix()}:{attribute or name}")
    return found


def test_the_judge_side_never_imports_the_submission():
    # The trusted side (checks, engine) runs no code it loads, with two exceptions: the reference child
    # importing the master (engine/reference.py), and the warm worker importing, by name, the modules
    # torch imports on its first compile (engine/zygote.py, names reported by a child that compiled the
    # grader's own warm-up program, or kept from such a child in a root-only folder). The submission's text reaches only the learner child
    # (sandbox/child.py), which compiles it.
    found = sorted(hit for name, path in modules().items() if layer(name) in ("checks", "engine") for hit in _loads_code(path))
    assert found == ["autograder/engine/reference.py:exec_module", "autograder/engine/reference.py:spec_from_file_location",
                     "autograder/engine/zygote.py:import_module"]


def test_no_import_cycle():
    every = modules()
    graph = {name: {t for t in imports(path) if t in every and not name.startswith(t + ".")} for name, path in every.items()}
    # Tarjan's strongly connected components: any component of more than one module is a cycle.
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_import_reader_sees_lazy_and_relative_imports(tmp_path, monkeypatch):
    # The rules above must be able to fail: a format module with a lazy, relative import of the
    # engine is read as importing it, and that edge goes upward.
    folder = tmp_path / "autograder" / "format"
    folder.mkdir(parents=True)
    (tmp_path / "autograder" / "engine").mkdir()
    (tmp_path / "autograder" / "engine" / "grader.py").write_text("")
    (folder / "x.py").write_text("def f():\n    from ..engine import grader\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "autograder")
    assert imports(folder / "x.py") == {"autograder.engine.grader"}
    assert RANK[layer("autograder.engine.grader")] > RANK[layer("autograder.format.x")]


def test_front_ends_are_thin_layers_over_grade():
    for path in (PACKAGE / "cli.py", PACKAGE / "learner" / "notebook.py", PACKAGE / "learner" / "pytest_plugin.py"):
        text = path.read_text()
        assert "from autograder.engine.grader import grade" in text, path
        assert "import torch" not in text, f"{path.name} must not import torch (listing stays instant)"


def test_listing_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, autograder.cli as c; c.main(['list', '--json']); assert 'torch' not in sys.modules, 'torch imported'"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr

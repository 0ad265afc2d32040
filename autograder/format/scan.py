"""A static look at a submission for what no fix needs and what cheats use.

It never runs the code. Each finding names the line and why it is flagged; an exercise can allow
a rule by name with ``scan_allow = ["threading"]`` in its header. A determined cheat can hide from
any static scan (that is why the grader also checks at run time, see integrity.py); the scan
catches the plain forms and explains itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# Modules a fix never needs: process control, raw memory, introspection of the grader.
FORBIDDEN_MODULES = {
    "ctypes": "raw memory access", "gc": "reaching the grader's objects", "subprocess": "starting processes",
    "multiprocessing": "starting processes", "socket": "network access", "threading": "threads",
    "_thread": "threads", "signal": "signals", "atexit": "code after the verdict", "importlib": "import surgery",
    "inspect": "reaching the grader's frames", "pty": "terminals", "mmap": "raw memory access",
    "resource": "changing the grader's limits", "faulthandler": "interpreter internals",
    "sysconfig": "interpreter internals", "marshal": "code objects", "pickle": "code execution on load",
}
FORBIDDEN_CALLS = {
    "exec": "running generated code", "eval": "running generated code", "compile": "running generated code",
    "__import__": "import surgery", "breakpoint": "debugger",
}
FORBIDDEN_ATTRIBUTES = {
    ("os", "_exit"): "ending the process before the verdict", ("os", "kill"): "signals",
    ("os", "killpg"): "signals", ("os", "fork"): "starting processes", ("os", "system"): "starting processes",
    ("os", "popen"): "starting processes", ("os", "setsid"): "leaving the grader's process group",
    ("os", "execv"): "replacing the process", ("os", "execvp"): "replacing the process",
    ("sys", "modules"): "import surgery", ("sys", "settrace"): "tracing the grader",
    ("sys", "setprofile"): "tracing the grader", ("sys", "_getframe"): "reaching the grader's frames",
    ("builtins", "__dict__"): "patching builtins",
}
PROTECTED_ROOTS = ("torch", "autograder", "builtins", "time")


@dataclass
class Finding:
    rule: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule} ({self.why})"


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _aliases(tree) -> dict[str, str]:
    """Local names bound by imports -> the module path they stand for."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def scan(source: str, allow: list[str] | tuple = ()) -> list[Finding]:
    """Findings for ``source`` (already known to compile), minus the rules in ``allow``."""
    findings: list[Finding] = []
    tree = ast.parse(source)
    aliases = _aliases(tree)

    def resolve(name: str) -> str:
        head, _, rest = name.partition(".")
        full = aliases.get(head, head)
        return f"{full}.{rest}" if rest else full

    def flag(rule: str, node, why: str) -> None:
        if rule not in allow:
            findings.append(Finding(rule, getattr(node, "lineno", 0), why))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in FORBIDDEN_MODULES:
                    flag(top, node, FORBIDDEN_MODULES[top])
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in FORBIDDEN_MODULES:
                flag(top, node, FORBIDDEN_MODULES[top])
            for alias in node.names:
                if (top, alias.name) in FORBIDDEN_ATTRIBUTES:
                    flag(f"{top}.{alias.name}", node, FORBIDDEN_ATTRIBUTES[(top, alias.name)])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            flag(node.func.id, node, FORBIDDEN_CALLS[node.func.id])
        elif isinstance(node, ast.Attribute):
            name = _dotted(node)
            pieces = name.split(".")
            if len(pieces) >= 2 and (pieces[-2], pieces[-1]) in FORBIDDEN_ATTRIBUTES:
                flag(f"{pieces[-2]}.{pieces[-1]}", node, FORBIDDEN_ATTRIBUTES[(pieces[-2], pieces[-1])])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("/proc"):
            flag("/proc", node, "reading the grader's process")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                name = resolve(_dotted(target)) if isinstance(target, ast.Attribute) else ""
                if name.split(".")[0] in PROTECTED_ROOTS and not name.startswith("torch._dynamo.config."):
                    flag("patching", target, f"replacing {name}; change your own code instead")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and node.args:
            owner = resolve(_dotted(node.args[0]))
            if owner.split(".")[0] in PROTECTED_ROOTS and owner != "torch._dynamo.config":
                flag("patching", node, f"{node.func.id} on {owner}; change your own code instead")
    return sorted(findings, key=lambda f: f.line)

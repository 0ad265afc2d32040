"""Check kinds for chapters 7 and 8: reading what the compiler did, and reporting what it got wrong.

- ``reproducer``: the learner's file is a minimal reproducer of a compiler failure. The grader
  imports it in a fresh interpreter (``probe.run_reproducer``) and calls ``entry(*inputs())`` eagerly
  and compiled with each backend. It must fail under ``backend`` the way the original program does
  (the same exception type and message, raised inside torch; or results that differ from eager),
  match eager under every backend of ``passes``, import nothing but torch and the standard library,
  and fit in ``max_lines`` lines of code. With ``culprit`` ("ns::op"), the failure must go away when
  the grader removes that operator's decomposition: the reproducer shows the planted bug, not
  another one. A file that raises the error itself (``raise``, ``torch._check(False, ...)``,
  ``torch.testing.assert_close``) fails: the error must come out of torch's own code. ``constant``
  names a module constant that must equal ``backend`` (the learner states the failing stage). The
  static rules (imports, lines, constant) are checked first; a file that breaks one is not run.

Questions about logs and traces use the ``answers`` kind: the master's truth function produces the
same log or trace itself (``probe.call_log``, ``probe.structured_trace``) before the submission runs.
``starter_line`` turns a line of the master into the line the learner sees in the starting file.

Nothing here touches ``torch._dynamo``: the runs happen in ``probe``.
"""

from __future__ import annotations

import ast
import sys

from autograder.checks.core import Context, _lesson, register
from autograder.sandbox.probe import run_reproducer
from autograder.format.result import CheckResult

def starter_line(master_path: str, line: int) -> int:
    """The line number, in the generated starting file, of line ``line`` of the master.

    Answers that name a line of the exercise's program are line numbers the learner sees in the file
    they run, and the starting file differs from the master above that line (a three-line banner
    instead of the TOML header, no SOLUTION lines). The line's text must occur once in the starter.
    """
    from pathlib import Path

    from autograder.format.exercise import starter_source

    text = Path(master_path).read_text(encoding="utf-8")
    wanted = text.splitlines()[line - 1]
    starter = starter_source(text, Path(master_path).stem, "").splitlines()
    matches = [number for number, code in enumerate(starter, start=1) if code == wanted]
    if len(matches) != 1:
        raise ValueError(f"line {line} of {master_path} ({wanted.strip()!r}) occurs {len(matches)} times in the starting file")
    return matches[0]


def code_lines(source: str) -> int:
    """Lines that hold code: not blank, not only a comment, not part of the module docstring."""
    tree = ast.parse(source)
    skip: set[int] = set()
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None), ast.Constant) \
            and isinstance(tree.body[0].value.value, str):
        skip = set(range(tree.body[0].lineno, tree.body[0].end_lineno + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), start=1)
               if number not in skip and line.strip() and not line.strip().startswith("#"))


def foreign_imports(source: str) -> list[str]:
    """Modules imported from outside torch and the standard library, as ``name (line N)``."""
    allowed = set(sys.stdlib_module_names) | {"torch"}
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")] if node.level else [node.module or ""]
        for name in names:
            if name.split(".")[0] not in allowed:
                found.append(f"{name} (line {node.lineno})")
    return found


def _constant(source: str, name: str):
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                return None
    return None


def _first_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[0][:240] if lines else ""


def raised_by_hand(run: dict) -> str | None:
    """Why an exception a reproducer raised is not torch failing on its own, or None.

    The frames are those of the error that started it: the innermost must be inside torch, and the
    torch code the reproducer called last must not be one of torch's raising helpers."""
    frames = run.get("frames") or []
    if not frames:
        return "the error has no traceback to check"
    own = [i for i, frame in enumerate(frames) if frame["where"] == "repro"]
    for i in own:
        if frames[i]["code"].startswith("raise"):
            return f"your file raises it itself (line {frames[i]['line']}: `{frames[i]['code']}`)"
    if frames[-1]["where"] != "torch":
        last = frames[-1]
        return f"it is raised outside torch, at {last['file'].rsplit('/', 1)[-1]}:{last['line']} (`{last['code']}`)"
    if own and own[-1] + 1 < len(frames):
        called = frames[own[-1] + 1]
        from autograder.sandbox.probe import _RAISING_HELPERS

        if called["function"] in _RAISING_HELPERS or "/torch/testing/" in called["file"]:
            return (f"your file calls torch's `{called['function']}` to raise it (line {frames[own[-1]]['line']}: "
                    f"`{frames[own[-1]]['code']}`); the error must come from torch doing the work")
    return None


@register("reproducer")
def check_reproducer(spec, ctx: Context) -> CheckResult:
    p = spec.params
    backend = p["backend"]
    passes = list(p.get("passes", ["eager"]))
    failure = p.get("failure", "exception")
    source = open(ctx.submission_file, encoding="utf-8").read()
    problems: list[str] = []
    good: list[str] = []

    # What a reader of the report sees first: small, standalone, names the backend.
    lines, budget = code_lines(source), p.get("max_lines", 40)
    if lines > budget:
        problems.append(f"it has {lines} lines of code, more than the budget of {budget} (blank lines, comments and the "
                        "docstring do not count): cut everything the failure does not need")
    foreign = foreign_imports(source)
    if foreign:
        problems.append(f"it imports {', '.join(foreign)}: a reproducer uses only torch and the standard library, so that "
                        "whoever reads the report can run it as it is")
    if p.get("constant"):
        named = _constant(source, p["constant"])
        if named != backend:
            problems.append(f"{p['constant']} is {named!r}; name the first backend that fails (an ablation finds it: "
                            "eager, aot_eager, aot_eager_decomp_partition, inductor)")

    if problems:  # not run yet: a reader would not get this far either (and running a long program costs seconds)
        return CheckResult.outcome(spec, False, "Your reproducer: " + "; ".join(problems) + ". The grader runs it once "
                                   "these are fixed. " + _lesson(spec, ctx.exercise))
    report = run_reproducer(ctx.submission_file, entry=ctx.exercise.entry, inputs=p.get("inputs", "make_inputs"),
                            backends=[backend, *passes], culprit=p.get("culprit"), timeout=p.get("timeout", 120))
    if report.get("error"):
        problems.append(report["error"])
    elif report.get("import"):
        problems.append(f"importing it raised {report['import']['type']}: {_first_line(report['import']['message'])}; "
                        f"it must define `{ctx.exercise.entry}` and `{p.get('inputs', 'make_inputs')}` and run nothing on import")
    else:
        runs = report["runs"]
        reference = runs.get("reference", {})
        if reference.get("status") != "ok":
            problems.append(f"`{ctx.exercise.entry}(*{p.get('inputs', 'make_inputs')}())` already fails without torch.compile "
                            f"({reference.get('type')}: {_first_line(reference.get('message', ''))}); the bug is in the compiler, "
                            "so plain eager must work")
        else:
            named = runs.get(backend, {})
            if failure == "exception":
                wanted = p.get("exception")
                if named.get("status") != "raised":
                    problems.append(f"under backend={backend!r} it does not raise (it {'matches eager' if named.get('status') == 'ok' else 'gives wrong results'}); "
                                    f"the original program raises {wanted}" + (f" ({p['match']!r})" if p.get("match") else ""))
                elif wanted and named["type"] != wanted:
                    problems.append(f"under backend={backend!r} it raises {named['type']}, not {wanted} as the original program does")
                elif p.get("match") and p["match"] not in named.get("message", ""):
                    problems.append(f"under backend={backend!r} it raises {named['type']}, but not the original error: "
                                    f"its message lacks {p['match']!r} (got: {_first_line(named.get('root_message') or named.get('message'))})")
                else:
                    by_hand = raised_by_hand(named)
                    if by_hand:
                        problems.append(f"under backend={backend!r} it raises {named['type']}, but {by_hand}")
                    else:
                        good.append(f"fails under backend={backend!r} with {named['type']} ({_first_line(named.get('root_message') or named['message'])}) raised inside torch")
            else:
                if named.get("status") != "mismatch":
                    what = "raises " + str(named.get("type")) if named.get("status") == "raised" else "matches eager"
                    problems.append(f"under backend={backend!r} it {what}; the original program gives results that differ from eager")
                else:
                    good.append(f"gives wrong results under backend={backend!r} ({named.get('message')})")
            for other in passes:
                run = runs.get(other, {})
                if run.get("status") != "ok":
                    how = (f"raises {run.get('type')}: {_first_line(run.get('root_message') or run.get('message', ''))}"
                           if run.get("status") == "raised" else f"gives wrong results ({run.get('message')})")
                    problems.append(f"under backend={other!r} it {how}; there it must match eager, as the original program does, "
                                    "or the report points at the wrong stage")
            if not any(f"backend={other!r}" in text for text in problems for other in passes):
                good.append(f"matches eager under {', '.join(repr(b) for b in passes)}")
            culprit = report.get("culprit")
            if p.get("culprit") and not any(f"backend={backend!r}" in text for text in problems):
                if culprit == "missing":
                    problems.append(f"it does not register a decomposition for {p['culprit']}: the failure to reproduce is that "
                                    "operator's decomposition")
                elif isinstance(culprit, dict) and culprit.get("status") != "ok":
                    problems.append(f"it still fails under backend={backend!r} with the decomposition of {p['culprit']} removed, "
                                    "so it reproduces some other failure, not the original one")
    if problems:
        return CheckResult.outcome(spec, False, "Your reproducer: " + "; ".join(problems) + ". " + _lesson(spec, ctx.exercise))
    return CheckResult.outcome(spec, True, f"Your reproducer ({lines} lines, torch and the standard library only) "
                               + " and ".join(good) + ".")

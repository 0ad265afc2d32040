"""Check kinds for chapters 7 and 8: reading what the compiler did, and reporting what it got wrong.

- ``reproducer``: the learner's file is a minimal reproducer of a compiler failure. The grader
  runs it in a process of its own (``autograder.sandbox.kinds.reporting``, forked before anything
  of the submission is imported) and calls ``entry(*inputs())`` eagerly and compiled with each backend. It must fail under ``backend`` the way the original program does
  (the same exception type and message, raised inside torch; or results that differ from eager),
  match eager under every backend of ``passes``, import nothing but torch and the standard library,
  and fit in ``max_lines`` lines of code. With ``culprit`` ("ns::op"), the failure must go away when
  the grader removes that operator's decomposition: the reproducer shows the planted bug, not
  another one. A file that raises the error itself (``raise``, ``torch._check(False, ...)``,
  ``torch.testing.assert_close``, or any torch call whose message is a phrase the file writes, such
  as an assert operator) fails: the error must come out of torch's own code. ``constant``
  names a module constant that must equal ``backend`` (the learner states the failing stage). The
  static rules (imports, lines, constant) are the judge's, read from the exact text the grader
  scanned; a file that breaks one is not run. Which frames of an error are the reproducer's and
  which are torch's is decided where it ran, by the identity of code objects and module
  namespaces, never by file names.

Questions about logs and traces use the ``answers`` kind: the master's truth function produces the
same log or trace itself (``probe.call_log``, ``probe.structured_trace``) before the submission runs.
``starter_line`` turns a line of the master into the line the learner sees in the starting file.

Decided in the judge, from plain data.
"""

from __future__ import annotations

import ast
import sys

from autograder.checks.core import _lesson, measure_failed
from autograder.checks.evidence import Evidence
from autograder.checks.facts import Bool, DictOf, Either, Int, ListOf, Maybe, Record, Text
from autograder.checks.registry import decides
from autograder.format import syntax
from autograder.format.result import CheckResult

# torch's helpers that raise on request: a reproducer that calls one raises the error itself.
RAISING_HELPERS = {"_check", "_check_with", "_check_value", "_check_type", "_check_index", "_check_is_size",
                   "_check_not_implemented", "_check_tensor_all", "_check_tensor_all_with", "_assert", "_assert_async",
                   "assert_close", "assert_allclose"}

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
    tree = syntax.parse(source)
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
    for node in ast.walk(syntax.parse(source)):
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
    for node in syntax.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                return None
    return None


def _first_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[0][:240] if lines else ""


def own_phrases(source: str) -> list[str]:
    """The phrases a file writes itself: its string literals that hold a space and 12 characters or
    more, docstrings left out (a report may quote the error it reproduces there)."""
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            docstrings.add(id(body[0].value))
    phrases = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value.strip()
            if len(text) >= 12 and " " in text:
                phrases.append(text)
    return phrases


def is_assert_operator(op: str) -> bool:
    """An operator that exists to raise a caller's message: aten::_assert_scalar, _assert_async,
    _functional_assert_async, _assert_tensor_metadata and the like (their names say so)."""
    name = op.split("::", 1)[-1].split(".", 1)[0]
    return "assert" in name


def raised_by_hand(run: dict, source: str | None = None) -> str | None:
    """Why an exception a reproducer raised is not torch failing on its own, or None.

    The frames are those of the error that started it: the innermost must be inside torch, and the
    torch code the reproducer called last must not be one of torch's raising helpers. With the
    reproducer's ``source``, the error's own message must not be a phrase the file wrote: whichever
    torch function raised it (an assert operator, a checking helper), torch did not find that error."""
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
    asserting = next((i for i, frame in enumerate(frames) if frame.get("op") and is_assert_operator(frame["op"])), None)
    if asserting is not None:
        caller = asserting - 1
        while caller >= 0 and frames[caller]["where"] == "torch":
            caller -= 1
        # Called from the file's own code (through torch only), not from code torch generated.
        if caller >= 0 and frames[caller]["where"] == "repro":
            return (f"your file calls the assert operator {frames[asserting]['op']} (line {frames[caller]['line']}: "
                    f"`{frames[caller]['code']}`), which raises whatever message it is given; the error must come from "
                    "torch doing the work")
    if own and own[-1] + 1 < len(frames):
        called = frames[own[-1] + 1]
        if called["function"] in RAISING_HELPERS or "/torch/testing/" in called["file"]:
            return (f"your file calls torch's `{called['function']}` to raise it (line {frames[own[-1]]['line']}: "
                    f"`{frames[own[-1]]['code']}`); the error must come from torch doing the work")
    root = run.get("root_message") or run.get("message") or ""
    for phrase in own_phrases(source or ""):
        if phrase in root:
            return (f"its message is a phrase your file writes itself ({phrase[:80]!r}): torch raised it because the file "
                    "told it to, not because the compiler failed; the error must come from torch doing the work")
    return None


def static_problems(source: str, params: dict) -> list[str]:
    """The rules a reader checks before running a reproducer: small, standalone, names the backend."""
    problems: list[str] = []
    backend = params["backend"]
    try:
        lines, budget = code_lines(source), params.get("max_lines", 40)
        foreign = foreign_imports(source)
    except (SyntaxError, ValueError, RecursionError):
        return ["Python cannot parse it"]
    if lines > budget:
        problems.append(f"it has {lines} lines of code, more than the budget of {budget} (blank lines, comments and the "
                        "docstring do not count): cut everything the failure does not need")
    if foreign:
        problems.append(f"it imports {', '.join(foreign)}: a reproducer uses only torch and the standard library, so that "
                        "whoever reads the report can run it as it is")
    if params.get("constant"):
        named = _constant(source, params["constant"])
        if named != backend:
            problems.append(f"{params['constant']} is {named!r}; name the first backend that fails (an ablation finds it: "
                            "eager, aot_eager, aot_eager_decomp_partition, inductor)")
    return problems


FRAME = Record({"where": Text(10), "file": Text(4000), "line": Maybe(Int()), "function": Text(400), "code": Text(4000)},
               {"op": Text(220)})
RUN = Record({"status": Text(20)}, {"type": Text(200), "message": Text(4000), "root_type": Text(200), "root_message": Text(2000),
                                    "frames": ListOf(FRAME, 40)})
REPORT = Either(Record({"error": Text(2000)}), Record({"not_run": Bool()}),
                Record({"import": Maybe(RUN), "runs": DictOf(RUN, max_len=20)}, {"culprit": Either(Text(20), RUN)}))


@decides("reproducer", facts=Record({"report": REPORT}, {"measure_failed": Text(2000)}))
def check_reproducer(spec, ev: Evidence) -> CheckResult:
    p = spec.params
    backend = p["backend"]
    passes = list(p.get("passes", ["eager"]))
    failure = p.get("failure", "exception")
    source = ev.source
    good: list[str] = []
    failed = measure_failed(spec, ev)
    if failed:
        return failed
    problems = static_problems(source, p)
    lines = code_lines(source) if not problems or "parse" not in problems[0] else 0
    if problems:  # not run: a reader would not get this far either (and running a long program costs seconds)
        return CheckResult.outcome(spec, False, "Your reproducer: " + "; ".join(problems) + ". The grader runs it once "
                                   "these are fixed. " + _lesson(spec, ev.exercise))
    report = ev.facts["report"] if isinstance(ev.facts.get("report"), dict) else {"error": "no report"}
    if report.get("not_run"):
        return CheckResult.outcome(spec, False, "Your reproducer was not run. " + _lesson(spec, ev.exercise))
    if report.get("error"):
        problems.append(report["error"])
    elif report.get("import"):
        problems.append(f"importing it raised {report['import']['type']}: {_first_line(report['import']['message'])}; "
                        f"it must define `{ev.exercise.entry}` and `{p.get('inputs', 'make_inputs')}` and run nothing on import")
    else:
        runs = report["runs"]
        reference = runs.get("reference", {})
        if reference.get("status") != "ok":
            problems.append(f"`{ev.exercise.entry}(*{p.get('inputs', 'make_inputs')}())` already fails without torch.compile "
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
                    by_hand = raised_by_hand(named, source)
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
        return CheckResult.outcome(spec, False, "Your reproducer: " + "; ".join(problems) + ". " + _lesson(spec, ev.exercise))
    return CheckResult.outcome(spec, True, f"Your reproducer ({lines} lines, torch and the standard library only) "
                               + " and ".join(good) + ".")

"""The exercise format: parse a master file in ``solutions/`` and derive the learner's starter.

A master is an ordinary Python file. It starts with a TOML header written as comments between
``# /// exercise`` and ``# ///``, then the task docstring, then code in which three kinds of
region are marked with comment lines:

``# BEGIN SOLUTION`` / ``# END SOLUTION``
    the fix; dropped from the starter.
``# BEGIN STARTER`` / ``# END STARTER``
    the broken code, commented out; uncommented into the starter.
``# BEGIN GRADER`` / ``# END GRADER``
    the input schedule and anything else only the grader needs; dropped from the starter.

This module never imports torch: listing and building must stay instant.
"""

from __future__ import annotations

import ast
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

FORMAT_VERSION = 1
ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
# The learners' working copies; AUTOGRADER_EXERCISES points elsewhere (a copy, a learner's own folder).
EXERCISES = Path(os.environ.get("AUTOGRADER_EXERCISES") or ROOT / "exercises")
LESSONS = ROOT / "lessons"

ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,31}$")
CHAPTER_PATTERN = re.compile(r"^(\d\d)_[a-z0-9_]+$")
HEADER_START = "# /// exercise"
HEADER_END = "# ///"

# Every kind of check the engine knows, with the parameters each accepts. autograder.checks decides
# each (and autograder.sandbox.kinds measures); this table lets the format be validated without torch.
CHECK_KINDS: dict[str, set[str]] = {
    "compiles": set(),
    "graphs": {"min", "max", "equal"},
    "graph_breaks": {"max", "allowed"},
    "recompiles": {"max"},
    "compiled_calls": set(),
    "correct": {"rtol", "atol"},
    "answers": {"constant", "truth", "variants", "function", "variant_truth"},
    "speed": {"min_ratio", "against", "backend", "needs", "warmup", "repeats", "size_hint"},
    # Chapter 2 (checks_breaks.py):
    "escape_hatch": {"via", "ops"},
    "output": {"stream", "expect"},
    "no_dodge": {"forbid"},
    "opcheck": {"op", "samples"},
    # Chapters 3 and 4 (checks_tracing.py):
    "nonstrict": {"helper", "hook", "observe", "ops", "mode", "rtol", "atol"},
    "ops": {"max", "min_largest"},
    # Chapter 2, part 2: fullgraph=False (checks_fullgraph_false.py):
    "breaks_allowed": {"allowed", "required"},
    "skipped_frames": {"ops", "functions"},
    "probe_variant": {"helper", "expect_type"},
    # Chapters 5 and 6: compile time and guard overhead (checks_cost.py):
    "guards": {"max_kept", "min_kept_fraction", "max_inputs", "config"},
    "subgraphs": {"min", "max_graphs"},
    "stance_calls": {"min"},
    "compile_time": {"min_ratio", "backend", "repeats"},
    "guard_time": {"min_ratio", "against", "repeats", "rounds"},
    # Chapters 7 and 8: reporting issues (checks_reporting.py):
    "reproducer": {"backend", "passes", "failure", "exception", "match", "max_lines", "inputs", "culprit", "constant", "timeout"},
    # What a learner's function builds or chooses (checks/modules.py):
    "same_module": {"model", "prepare", "input_shape"},
    "checkpoint": {"model", "prepare", "save", "input_shape"},
    "limit_in_effect": {"min", "max"},
    "bisect": {"function", "agree_with"},
}
# The dodges a no_dodge check can look for (checks_breaks.py says how each is detected).
DODGES = {"disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"}
# What `config_may_add` may let a set-valued torch._dynamo.config key gain (probe decides membership).
CONFIG_ADDITIONS = {"print", "logging"}
# Kinds that time things (and may compile with Inductor): skipped in structure-only runs.
COSTLY_KINDS = {"speed", "compile_time", "guard_time"}
COMMON_CHECK_KEYS = {"kind", "name", "points", "section", "hidden"}
COMPILE_KEYS = {"fullgraph", "dynamic", "backend"}


class ExerciseFormatError(ValueError):
    """A master file that does not follow the format; the message says how to fix it."""


@dataclass(frozen=True)
class CheckSpec:
    kind: str
    name: str
    points: int
    params: dict
    # The lesson section that teaches what this check is about (defaults to the exercise's).
    section: str
    # Hidden from learners in classroom feedback (nbgrader, Gradescope); still graded.
    hidden: bool = False

    @property
    def needs(self) -> list[str]:
        needs = self.params.get("needs", [])
        return [needs] if isinstance(needs, str) else list(needs)


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    chapter: str  # folder name shared by lessons/, exercises/, solutions/: "01_dynamo_core"
    syllabus: list[str]
    section: str  # lesson section that teaches the fix
    entry: str  # name of the callable the grader compiles
    factory: bool  # entry is a zero-argument factory returning the callable to compile
    compile: dict  # torch.compile keyword arguments the grader uses
    submission_may_set: list[str]  # compile keys the learner may choose via COMPILE_OPTIONS
    allow_config: list[str]  # torch._dynamo.config keys the learner may change
    checks: list[CheckSpec]
    starter_fails: list[str]  # names of the checks the starter must fail
    hints: list[str]
    timeout: float
    task: str  # the module docstring: what the learner is asked to do
    master: Path = field(repr=False)
    # Set-valued torch._dynamo.config keys the learner may only *add* to, and what they may add:
    # {"reorderable_logging_functions": ["print"], "ignore_logging_functions": ["logging"]}.
    config_may_add: dict = field(default_factory=dict)
    # Optional: a function in the file that the grader calls as driver(compiled_entry, *args) for
    # each call of the schedule (the learner's eager code around the compiled function).
    driver: str | None = None
    # Optional: rules of the static scan (scan.py) this exercise allows, e.g. ["threading"].
    scan_allow: list = field(default_factory=list)

    @property
    def chapter_number(self) -> int:
        return int(self.chapter[:2])

    @property
    def starter(self) -> Path:
        return EXERCISES / self.chapter / f"{self.id}.py"

    @property
    def lesson(self) -> Path:
        return LESSONS / f"{self.chapter}.py"

    @property
    def needs(self) -> list[str]:
        return sorted({need for check in self.checks for need in check.needs})

    @property
    def max_score(self) -> int:
        return sum(check.points for check in self.checks)

    def check(self, name: str) -> CheckSpec:
        for spec in self.checks:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def rel(self, path: Path) -> str:
        return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)

    def summary(self) -> dict:
        """The object ``list --json`` prints for this exercise."""
        return {
            "id": self.id,
            "title": self.title,
            "chapter": self.chapter_number,
            "chapter_slug": self.chapter,
            "syllabus": self.syllabus,
            "section": self.section,
            "lesson": self.rel(self.lesson),
            "exercise": self.rel(self.starter),
            "solution": self.rel(self.master),
            "entry": self.entry,
            "needs": self.needs,
            "max_score": self.max_score,
            "checks": [check.name for check in self.checks],
        }


def split_header(text: str, where: str = "<master>") -> tuple[dict, str]:
    """Return (header as a dict, the rest of the file)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != HEADER_START:
        raise ExerciseFormatError(f"{where}: the first line must be '{HEADER_START}'")
    for end, line in enumerate(lines[1:], start=1):
        if line.rstrip() == HEADER_END:
            break
    else:
        raise ExerciseFormatError(f"{where}: the header has no closing '{HEADER_END}' line")
    body = []
    for number, line in enumerate(lines[1:end], start=2):
        stripped = line.rstrip("\n")
        if stripped == "#":
            body.append("")
        elif stripped.startswith("# "):
            body.append(stripped[2:])
        else:
            raise ExerciseFormatError(f"{where}:{number}: header lines must start with '# '")
    try:
        header = tomllib.loads("\n".join(body))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseFormatError(f"{where}: the header is not valid TOML: {exc}") from None
    return header, "".join(lines[end + 1 :])


_MARKER = re.compile(r"^(?P<indent>\s*)# (?P<verb>BEGIN|END) (?P<region>SOLUTION|STARTER|GRADER)\s*$")


def _regions(code: str, where: str):
    """Yield (region or None, indent, line) for each line, validating that markers pair up."""
    region, indent = None, ""
    for number, line in enumerate(code.splitlines(keepends=True), start=1):
        match = _MARKER.match(line.rstrip("\n"))
        if match:
            verb, name = match["verb"], match["region"]
            if verb == "BEGIN":
                if region is not None:
                    raise ExerciseFormatError(f"{where}: '# BEGIN {name}' inside an open {region} region (body line {number})")
                if name == "GRADER" and match["indent"]:
                    raise ExerciseFormatError(f"{where}: the GRADER region must be at top level (body line {number})")
                region, indent = name, match["indent"]
            else:
                if region != name:
                    raise ExerciseFormatError(f"{where}: '# END {name}' without a matching BEGIN (body line {number})")
                region = None
            continue
        yield region, indent, line
    if region is not None:
        raise ExerciseFormatError(f"{where}: the {region} region is never closed")


def _uncomment(line: str, indent: str, where: str) -> str:
    text = line.rstrip("\n")
    if text.strip() == "":
        return "\n"
    if text.startswith(indent + "# "):
        return indent + text[len(indent) + 2 :] + "\n"
    if text == indent + "#":
        return "\n"
    raise ExerciseFormatError(f"{where}: STARTER lines must be commented with '# ' at the marker's indentation: {text!r}")


def starter_source(master_text: str, exercise_id: str, title: str, where: str = "<master>") -> str:
    """Render the learner's starting file from the master's text."""
    _, code = split_header(master_text, where)
    out = [
        f"# Exercise {exercise_id}: {title}\n",
        f"# Edit this file, then check it with:  python -m autograder check {exercise_id}\n",
        f"# Stuck? python -m autograder hint {exercise_id}   Start over: python -m autograder reset {exercise_id}\n",
    ]
    for region, indent, line in _regions(code, where):
        if region is None:
            out.append(line)
        elif region == "STARTER":
            out.append(_uncomment(line, indent, where))
    text = re.sub(r"\n{3,}(?=\S)", "\n\n\n", "".join(out))
    return text.rstrip("\n") + "\n"


def solution_view(exercise: "Exercise") -> str:
    """The reference fix as a learner reads it: the starter's layout with the SOLUTION code in."""
    _, code = split_header(exercise.master.read_text(encoding="utf-8"), exercise.id)
    kept = [line for region, _, line in _regions(code, exercise.id) if region in (None, "SOLUTION")]
    return f"# Reference solution of {exercise.id}: {exercise.title}\n" + re.sub(r"\n{3,}(?=\S)", "\n\n\n", "".join(kept)).rstrip("\n") + "\n"


def _expect(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ExerciseFormatError(f"{where}: {message}")


def parse_master(path: Path) -> Exercise:
    """Parse and validate one master file."""
    where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    text = path.read_text(encoding="utf-8")
    header, code = split_header(text, where)
    exercise_id = path.stem
    _expect(ID_PATTERN.match(exercise_id) is not None, where, "the file name must be a valid id: [a-z][a-z0-9_], at most 32 characters")
    chapter = path.parent.name
    _expect(CHAPTER_PATTERN.match(chapter) is not None, where, "masters live in solutions/NN_topic/")
    _expect(header.get("format_version") == FORMAT_VERSION, where, f"set format_version = {FORMAT_VERSION}")
    for key in ("title", "entry", "syllabus", "checks", "starter_fails", "hints"):
        _expect(key in header, where, f"the header needs '{key}'")
    known = {"format_version", "title", "syllabus", "section", "entry", "factory", "compile", "submission_may_set",
             "allow_config", "checks", "starter_fails", "hints", "timeout", "config_may_add", "driver", "scan_allow"}
    unknown = set(header) - known
    _expect(not unknown, where, f"unknown header keys {sorted(unknown)}")
    syllabus = [str(s) for s in header["syllabus"]]
    _expect(bool(syllabus) and all(s.split(".")[0] == str(int(chapter[:2])) for s in syllabus), where,
            f"syllabus IDs must belong to chapter {int(chapter[:2])}")
    section = str(header.get("section", syllabus[0]))
    compile_options = dict(header.get("compile", {}))
    _expect(set(compile_options) <= COMPILE_KEYS, where, f"compile accepts only {sorted(COMPILE_KEYS)}")
    may_set = list(header.get("submission_may_set", []))
    _expect(set(may_set) <= {"dynamic", "fullgraph", "recompile_limit", "guard_filter_fn"}, where,
            "submission_may_set accepts only 'dynamic', 'fullgraph', 'recompile_limit' and 'guard_filter_fn'")

    may_add = dict(header.get("config_may_add", {}))
    for key, tokens in may_add.items():
        _expect(isinstance(tokens, list) and set(tokens) <= CONFIG_ADDITIONS and bool(tokens), where,
                f"config_may_add.{key} must be a list drawn from {sorted(CONFIG_ADDITIONS)}")
        _expect(key not in header.get("allow_config", []), where, f"{key} is in both allow_config and config_may_add; keep one")
    driver = header.get("driver")
    _expect(driver is None or (isinstance(driver, str) and driver.isidentifier()), where, "driver must name a function in the file")

    checks: list[CheckSpec] = []
    for raw in header["checks"]:
        kind = raw.get("kind")
        _expect(kind in CHECK_KINDS, where, f"unknown check kind {kind!r}; known: {sorted(CHECK_KINDS)}")
        params = {k: v for k, v in raw.items() if k not in COMMON_CHECK_KEYS}
        extra = set(params) - CHECK_KINDS[kind]
        _expect(not extra, where, f"check {kind!r} does not take {sorted(extra)}")
        name = raw.get("name", kind)
        _expect(all(c.name != name for c in checks), where, f"two checks are named {name!r}; give one a 'name'")
        points = raw.get("points", 1)
        _expect(isinstance(points, int) and points >= 0, where, f"check {name!r}: points must be a whole number >= 0")
        if kind == "escape_hatch":
            _expect(compile_options.get("backend") in (None, "aot_eager"), where,
                    "an escape_hatch check traces the graphs with aot_eager: leave compile.backend unset or \"aot_eager\"")
            _expect(params.get("via", "any") in ("nonstrict_trace", "custom_op", "any"), where,
                    "escape_hatch.via is one of \"nonstrict_trace\", \"custom_op\", \"any\"")
        if kind == "output":
            _expect(params.get("stream", "stdout") in ("stdout", "logging"), where, "output.stream is \"stdout\" or \"logging\"")
            _expect(params.get("expect", "reference") in ("reference", "silent"), where, "output.expect is \"reference\" or \"silent\"")
        if kind == "no_dodge":
            _expect(set(params.get("forbid", [])) <= DODGES, where, f"no_dodge.forbid is drawn from {sorted(DODGES)}")
        if kind == "opcheck":
            _expect(isinstance(params.get("op"), str) and "::" in params["op"], where, "opcheck.op names the operator as \"namespace::name\"")
        if kind == "nonstrict":
            _expect(isinstance(params.get("helper"), str) and params["helper"].isidentifier(), where,
                    "nonstrict.helper names the module-level function the grader traces")
            _expect(set(params.get("observe", ["output"])) <= {"output", "stdout", "arguments"}, where,
                    "nonstrict.observe is drawn from \"output\", \"stdout\", \"arguments\"")
            _expect(params.get("mode", "fake") in ("fake", "real", "symbolic"), where, "nonstrict.mode is \"fake\", \"real\" or \"symbolic\"")
            _expect(not header.get("factory"), where, "a nonstrict check calls the entry itself: factory exercises are not supported")
        if kind == "breaks_allowed":
            _expect(all(isinstance(a, str) and a.strip() for a in params.get("allowed", [])), where,
                    "breaks_allowed.allowed lists Dynamo break types (\"TYPE\" or \"TYPE @ function\")")
        if kind == "probe_variant":
            _expect(isinstance(params.get("helper"), str) and params["helper"].replace(".", "_").isidentifier(), where,
                    "probe_variant needs helper: the learner's function, e.g. \"hot\" or \"Block.forward\" (the grader "
                    "places a graph break at each call it makes)")
        if kind == "answers":
            _expect(bool(params.get("variants")) == bool(params.get("function")), where,
                    "answers: `variants` (a master function of gen drawing parameter sets) and `function` (the learner's "
                    "function called with each) go together")
        if kind == "bisect":
            _expect(isinstance(params.get("agree_with"), str), where, "bisect.agree_with names the answers check whose truth is the grader's bisection")
        if kind == "limit_in_effect":
            _expect(all(isinstance(params.get(k), int) for k in ("min", "max")) and params["min"] <= params["max"], where,
                    "limit_in_effect needs whole numbers min <= max")
        if kind == "reproducer":
            _expect(isinstance(params.get("backend"), str) and params["backend"], where, "reproducer.backend names the backend under which it must fail")
            _expect(params.get("failure", "exception") in ("exception", "mismatch"), where, "reproducer.failure is \"exception\" or \"mismatch\"")
            _expect(isinstance(params.get("max_lines", 40), int), where, "reproducer.max_lines is a whole number of lines of code")
        checks.append(CheckSpec(kind=kind, name=name, points=points, params=params, section=str(raw.get("section", section)), hidden=bool(raw.get("hidden", False))))
    names = {c.name for c in checks}
    starter_fails = list(header["starter_fails"])
    _expect(bool(starter_fails) and set(starter_fails) <= names, where, "starter_fails must name one or more of the checks")
    _expect(any(c.kind not in COSTLY_KINDS for c in checks if c.name in starter_fails), where,
            "starter_fails must name at least one check that is not a timing check, so structure-only runs catch the starter")
    hints = [str(h).strip() for h in header["hints"]]
    _expect(len(hints) >= 2 and all(hints), where, "give at least two non-empty hints (a ladder: where, then how)")

    # Regions must pair up and the starter must be valid Python with a TODO at the place to change.
    regions = {region for region, _, _ in _regions(code, where)}
    _expect("SOLUTION" in regions and "STARTER" in regions, where, "mark the fix with SOLUTION and the broken code with STARTER")
    starter = starter_source(text, exercise_id, header["title"], where)
    try:
        ast.parse(starter)
    except SyntaxError as exc:
        raise ExerciseFormatError(f"{where}: the generated starter is not valid Python: {exc}") from None
    _expect("TODO" in starter, where, "the starter must contain a '# TODO' at the place to change")
    try:
        module = ast.parse(text)
    except SyntaxError as exc:
        raise ExerciseFormatError(f"{where}: the master is not valid Python: {exc}") from None
    task = ast.get_docstring(module) or ""
    _expect(bool(task.strip()), where, "start the code with a docstring that states the task")

    return Exercise(
        id=exercise_id,
        title=str(header["title"]),
        chapter=chapter,
        syllabus=syllabus,
        section=section,
        entry=str(header["entry"]),
        factory=bool(header.get("factory", False)),
        compile=compile_options,
        submission_may_set=may_set,
        allow_config=list(header.get("allow_config", [])),
        config_may_add={key: list(tokens) for key, tokens in may_add.items()},
        driver=driver,
        checks=checks,
        starter_fails=starter_fails,
        hints=hints,
        timeout=float(header.get("timeout", 90)),
        task=task.strip(),
        master=path,
        scan_allow=[str(rule) for rule in header.get("scan_allow", [])],
    )


def _sort_key(exercise: Exercise):
    section = tuple(int(p) for p in exercise.syllabus[0].split("."))
    return (exercise.chapter, section, exercise.id)


def discover(root: Path = SOLUTIONS) -> list[Exercise]:
    """Every exercise, in course order (chapter, then first syllabus ID, then id)."""
    exercises = [parse_master(path) for path in sorted(root.glob("[0-9][0-9]_*/*.py"))]
    seen: dict[str, Path] = {}
    for exercise in exercises:
        if exercise.id in seen:
            raise ExerciseFormatError(f"exercise id {exercise.id!r} is used twice: {seen[exercise.id]} and {exercise.master}")
        seen[exercise.id] = exercise.master
    return sorted(exercises, key=_sort_key)


def load(exercise_id: str) -> Exercise:
    """Find one exercise by id; raises KeyError with the known ids when absent."""
    matches = list(SOLUTIONS.glob(f"[0-9][0-9]_*/{exercise_id}.py")) if ID_PATTERN.match(exercise_id) else []
    if not matches:
        raise KeyError(exercise_id)
    return parse_master(matches[0])

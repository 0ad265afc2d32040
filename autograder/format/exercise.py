"""The exercise format: parse a master file in ``solutions/`` and derive every form made from it.

A master is an ordinary Python file. It starts with a TOML header written as comments between
``# /// exercise`` and ``# ///``, then the task docstring, then code in which five kinds of
region are marked with comment lines:

``# BEGIN SOLUTION`` / ``# END SOLUTION``
    the fix; dropped from the starter.
``# BEGIN STARTER`` / ``# END STARTER``
    the broken code, commented out; uncommented into the starter.
``# BEGIN FAIR name`` / ``# END FAIR``, ``# BEGIN WRONG name`` / ``# END WRONG``
    another correct fix and a plausible wrong one, commented out; ``variant_source`` renders each
    as a learner's file, for ``dev check`` to grade. Every other form drops them.
``# BEGIN GRADER`` / ``# END GRADER``
    the input schedule and anything else only the grader needs; dropped from the starter.

A *site* is a SOLUTION region and the STARTER/FAIR/WRONG regions right after it (blank and
comment lines allowed between, same indentation). The header lists the task's ``[[requirements]]`` (each names the
checks that enforce it; the learner's task text shows them), and describes each variant in
``[[fair]]`` and ``[[wrong]]``. CONTRIBUTING.md shows the whole format with a worked example.

This module never imports torch: listing and building must stay instant.
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from autograder.format import syntax

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
    "compiled_calls": {"min_graph_runs"},
    "correct": {"rtol", "atol"},
    # Without variants: `constant` (the learner's table) against `truth` (a master function returning the table).
    # With variants: `variants(gen)` (a master function) draws parameter sets per grading; the learner's
    # `function(**params)` is compared with the master's `truth(params)` (default: the master's own
    # `function(**params)`); a `constant` beside them is checked first, against `constant_truth()`.
    "answers": {"constant", "truth", "variants", "function", "constant_truth"},
    # `against`: "eager", "starter" (then eager, the compiled starter and the fix are timed in one loop;
    # `eager_min_ratio` also decides the fix over eager) or "starter_eager" (the starter run eagerly: eager
    # work a fix adds around its compiled code counts in full; steady mode only); `mode`: "steady" (warm, interleaved repeats) or
    # "end_to_end" (whole cold schedules, compile included, `rounds` of them); `max_spread`: IQR/median of
    # the ratios above which the timing is retried once, then, still scattered, not judged; `min_repeat_ms`:
    # a steady repeat runs the schedule as often as makes it last that long (default 25); `inputs`: a
    # master function of gen, like `calls`, drawing the inputs that are timed (large ones), while the
    # structure checks run on the cheap `calls`; the fix's outputs on them must match the reference's.
    "speed": {"min_ratio", "eager_min_ratio", "against", "mode", "rounds", "max_spread", "backend", "needs", "warmup", "repeats",
              "min_repeat_ms", "inputs"},
    # Chapter 2 (checks_breaks.py):
    "escape_hatch": {"via", "ops"},
    "output": {"stream", "expect"},
    "no_dodge": {"forbid"},
    "opcheck": {"op", "samples"},
    # Chapters 3 and 4 (checks_tracing.py):
    "nonstrict": {"helper", "hook", "observe", "ops", "mode", "rtol", "atol", "reaches", "pure"},
    "ops": {"max", "min_largest"},
    # Chapter 2, part 2: fullgraph=False (checks_fullgraph_false.py):
    "breaks_allowed": {"allowed", "required", "callee"},
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
    "resume": {"model", "prepare", "resume", "input_shape"},
    "limit_in_effect": {"min", "max"},
    "bisect": {"function", "agree_with", "control"},
    # Invalid inputs must still be refused while the compiled code runs (checks/refusal.py):
    "refuses": {"inputs", "types"},
    # A restart that gets only the saved cache artifacts compiles from them, and faster (checks/caches.py):
    "warm_start": {"save", "load", "min_ratio", "backend", "timeout"},
    # A later run of the job, in a new process with the cache folder kept, compiles at most `max` graphs (checks/caches.py):
    "later_run": {"max", "runs"},
}
# The dodges a no_dodge check can look for (checks_breaks.py says how each is detected).
DODGES = {"disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"}
# What `config_may_add` may let a set-valued torch._dynamo.config key gain (probe decides membership).
CONFIG_ADDITIONS = {"print", "logging"}
# Kinds that time things (and may compile with Inductor): skipped in structure-only runs.
COSTLY_KINDS = {"speed", "compile_time", "guard_time"}
COMMON_CHECK_KEYS = {"kind", "name", "points", "section", "hidden"}
COMPILE_KEYS = {"fullgraph", "dynamic", "backend"}


# Lessons: lessons/NN_topic.py, or NNa_topic.py, NNb_topic.py when a chapter is split in parts.
LESSON_NAME = re.compile(r"^(\d\d)([a-z]?)_[a-z0-9_]+\.py$")
LESSON_HEADING = re.compile(r"^# #{2,6} (\d+(?:\.\d+)+) ", re.M)


def lesson_files() -> list[Path]:
    """Every lesson's text source, in course order."""
    return sorted(p for p in LESSONS.glob("[0-9][0-9]*_*.py") if LESSON_NAME.match(p.name))


def lesson_headings(lesson: Path) -> list[str]:
    """The syllabus IDs that are numbered headings of ``lesson``, in order."""
    return LESSON_HEADING.findall(lesson.read_text(encoding="utf-8")) if lesson.is_file() else []


def lesson_for(chapter: str, section: str) -> Path:
    """The lesson of ``chapter`` (``02_graph_breaks``) whose headings hold ``section``, else the one
    holding its nearest parent section, else the chapter's first lesson."""
    number = chapter[:2]
    candidates = [p for p in lesson_files() if p.name[:2] == number]
    if not candidates:
        return LESSONS / f"{chapter}.py"
    headings = {p: set(lesson_headings(p)) for p in candidates}
    parts = section.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        for lesson in candidates:
            if prefix in headings[lesson]:
                return lesson
    return candidates[0]


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
class Requirement:
    """One requirement the task states, in the learner's words, and the checks that enforce it."""
    id: str
    text: str
    checks: tuple[str, ...]


@dataclass(frozen=True)
class FairFix:
    """A FAIR variant: another correct fix (another formulation or strategy); it must pass."""
    name: str
    why: str


@dataclass(frozen=True)
class WrongFix:
    """A WRONG variant: a plausible mistake that violates requirement ``breaks``; each check in
    ``fails`` must fail with a message matching the regular expression ``message``."""
    name: str
    breaks: str
    fails: tuple[str, ...]
    message: str


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
    # What the learner reads as the task: the module docstring, then the requirement list.
    task: str
    master: Path = field(repr=False)
    # Set-valued torch._dynamo.config keys the learner may only *add* to, and what they may add:
    # {"reorderable_logging_functions": ["print"], "ignore_logging_functions": ["logging"]}.
    config_may_add: dict = field(default_factory=dict)
    # Optional: a function in the file that the grader calls as driver(compiled_entry, *args) for
    # each call of the schedule (the learner's eager code around the compiled function).
    driver: str | None = None
    # Optional: rules of the static scan (scan.py) this exercise allows, e.g. ["threading"].
    scan_allow: list = field(default_factory=list)
    statement: str = ""  # the module docstring alone, as the author wrote it
    requirements: list[Requirement] = field(default_factory=list)
    fair: list[FairFix] = field(default_factory=list)
    wrong: list[WrongFix] = field(default_factory=list)
    # The chapter's "find it yourself" exercise, drawing on several of its sections: it comes last
    # in the chapter's course order, whatever its first syllabus ID.
    capstone: bool = False

    @property
    def chapter_number(self) -> int:
        return int(self.chapter[:2])

    @property
    def starter(self) -> Path:
        return EXERCISES / self.chapter / f"{self.id}.py"

    @property
    def lesson(self) -> Path:
        """The lesson that teaches this exercise: of its chapter's lessons, the one whose headings
        hold its section (a chapter may have several lessons: 02a_..., 02b_...)."""
        return lesson_for(self.chapter, self.section)

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

    def requirement(self, requirement_id: str) -> Requirement:
        for requirement in self.requirements:
            if requirement.id == requirement_id:
                return requirement
        raise KeyError(requirement_id)

    def requirements_for(self, check_name: str) -> list[Requirement]:
        """The requirements a check enforces (empty for a check that enforces none)."""
        return [r for r in self.requirements if check_name in r.checks]

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


def _split(text: str, where: str) -> tuple[dict, str, int]:
    """(header, the code after it, the number of master lines before that code)."""
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
    return header, "".join(lines[end + 1 :]), end + 1


def split_header(text: str, where: str = "<master>", keep_variants: bool = False) -> tuple[dict, str]:
    """Return (header as a dict, the rest of the file).

    The rest has its FAIR and WRONG regions removed (markers included), since every form generated
    from a master (starter, solution view, nbgrader cells) leaves them out; ``keep_variants=True``
    returns the code as written.
    """
    header, code, offset = _split(text, where)
    return header, code if keep_variants else _without_variants(code, where, offset)


# The marker lines. FAIR and WRONG regions carry a name: ``# BEGIN FAIR einsum`` ... ``# END FAIR``.
REGION_KINDS = ("SOLUTION", "STARTER", "GRADER", "FAIR", "WRONG")
VARIANT_KINDS = ("FAIR", "WRONG")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
_MARKER = re.compile(r"^(?P<indent>[ \t]*)# (?P<verb>BEGIN|END) (?P<region>SOLUTION|STARTER|GRADER|FAIR|WRONG)"
                     r"(?:[ \t]+(?P<name>\S+))?[ \t]*$")
# Something that looks meant as a marker but is not one (lower case, no space, a stray word): an error,
# so that a typo never silently turns a region into an ordinary comment the learner would see.
_NEAR_MARKER = re.compile(r"^[ \t]*#\s*(BEGIN|END)\s*(SOLUTION|STARTER|GRADER|FAIR|WRONG)\b", re.IGNORECASE)


@dataclass
class Region:
    """One marked region of a master's code: its kind, its name (FAIR/WRONG only), its lines."""
    kind: str
    name: str | None
    indent: str
    line: int  # line number of its BEGIN marker in the master file
    begin: str  # the marker lines, kept for forms that show the master's own code
    end: str
    lines: list[str] = field(default_factory=list)
    site: int | None = None  # the index of the site it belongs to; None outside any site


def _parse_body(code: str, where: str, offset: int = 0) -> list:
    """The code as a list of plain lines (str) and Regions, with each region's site assigned.

    ``offset`` is the number of master lines before ``code`` (the header), so that messages name the
    master's own line numbers. A *site* is a SOLUTION region and the STARTER/FAIR/WRONG regions that
    follow it at the same indentation with only blank or comment lines between.
    """
    items: list = []
    open_region: Region | None = None
    for number, line in enumerate(code.splitlines(keepends=True), start=offset + 1):
        text = line.rstrip("\n").rstrip("\r")
        match = _MARKER.match(text)
        if match is None and _NEAR_MARKER.match(text):
            raise ExerciseFormatError(f"{where}:{number}: {text.strip()!r} looks like a region marker but is not one; "
                                      f"write '# BEGIN KIND' / '# END KIND' (KIND: {', '.join(REGION_KINDS)}; "
                                      "FAIR and WRONG take a name: '# BEGIN FAIR einsum')")
        if match is None:
            (open_region.lines if open_region else items).append(line)
            continue
        verb, kind, name = match["verb"], match["region"], match["name"]
        if verb == "BEGIN":
            if open_region is not None:
                raise ExerciseFormatError(f"{where}:{number}: '# BEGIN {kind}' inside an open {open_region.kind} region "
                                          f"(opened on line {open_region.line})")
            if kind == "GRADER" and match["indent"]:
                raise ExerciseFormatError(f"{where}:{number}: the GRADER region must be at top level")
            if kind in VARIANT_KINDS:
                if name is None:
                    raise ExerciseFormatError(f"{where}:{number}: a {kind} region needs a name: '# BEGIN {kind} some_name'")
                if not NAME_PATTERN.match(name):
                    raise ExerciseFormatError(f"{where}:{number}: {kind} region name {name!r} must match [a-z][a-z0-9_]*")
            elif name is not None:
                raise ExerciseFormatError(f"{where}:{number}: a {kind} region takes no name ({name!r}); "
                                          f"only FAIR and WRONG regions are named")
            open_region = Region(kind, name, match["indent"], number, line, "")
        else:
            if open_region is None or open_region.kind != kind:
                raise ExerciseFormatError(f"{where}:{number}: '# END {kind}' without a matching BEGIN")
            if name is not None and name != open_region.name:
                raise ExerciseFormatError(f"{where}:{number}: '# END {kind} {name}' closes the region "
                                          f"'{open_region.name}' opened on line {open_region.line}")
            if match["indent"] != open_region.indent:
                raise ExerciseFormatError(f"{where}:{number}: '# END {kind}' is not at the indentation of its BEGIN "
                                          f"(line {open_region.line})")
            open_region.end = line
            items.append(open_region)
            open_region = None
    if open_region is not None:
        raise ExerciseFormatError(f"{where}:{open_region.line}: the {open_region.kind} region is never closed")
    _assign_sites(items, where)
    return items


def _assign_sites(items: list, where: str) -> None:
    site, current = -1, None
    for item in items:
        if isinstance(item, str):
            if item.strip() and not item.lstrip().startswith("#"):  # blank and comment lines keep the site open
                current = None
            continue
        if item.kind == "SOLUTION":
            site += 1
            current, item.site = item, site
        elif item.kind == "GRADER":
            current = None
        elif current is not None and item.indent == current.indent:
            item.site = site
        else:
            current = None
    for number in range(site + 1):
        members = [r for r in items if isinstance(r, Region) and r.site == number]
        seen: dict = {}
        for region in members:
            key = (region.kind, region.name)
            if key in seen:
                label = f"{region.kind} {region.name}" if region.name else region.kind
                raise ExerciseFormatError(f"{where}:{region.line}: a second {label} region at the site of the SOLUTION "
                                          f"on line {members[0].line} (first on line {seen[key]}); one per site")
            seen[key] = region.line


def _uncomment(line: str, indent: str, where: str, kind: str = "STARTER") -> str:
    text = line.rstrip("\n")
    if text.strip() == "":
        return "\n"
    if text.startswith(indent + "# "):
        return indent + text[len(indent) + 2 :] + "\n"
    if text == indent + "#":
        return "\n"
    raise ExerciseFormatError(f"{where}: {kind} lines must be commented with '# ' at the marker's indentation: {text!r}")


def _render(items: list, where: str, keep) -> str:
    """Join the body: plain lines as they are, each region as ``keep(region)`` says:
    "code" (its lines as written), "uncomment" (its lines uncommented) or "drop"."""
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
            continue
        action = keep(item)
        if action == "code":
            out.extend(item.lines)
        elif action == "uncomment":
            out.extend(_uncomment(line, item.indent, f"{where}:{item.line}", item.kind) for line in item.lines)
        elif action == "marked":  # the master's own code, markers included
            out.append(item.begin)
            out.extend(item.lines)
            out.append(item.end)
    return "".join(out)


def _tidy(text: str) -> str:
    return re.sub(r"\n{3,}(?=\S)", "\n\n\n", text).rstrip("\n") + "\n"


def _header_and_body(master_text: str, where: str) -> tuple[dict, list]:
    header, items = _header_and_body_of(master_text, where)
    return copy.deepcopy(header), list(items)


@functools.lru_cache(maxsize=256)
def _header_and_body_of(master_text: str, where: str) -> tuple[dict, tuple]:
    # Every variant and form of a master is rendered from it: parsed once per text, not once per form.
    header, code, offset = _split(master_text, where)
    return header, tuple(_parse_body(code, where, offset))


def _banner(exercise_id: str, title: str) -> list[str]:
    return [
        f"# Exercise {exercise_id}: {title}\n",
        f"# Edit this file, then check it with:  ./course check {exercise_id}\n",
        f"# Stuck? ./course hint {exercise_id}   Start over: ./course reset {exercise_id}\n",
    ]


REQUIREMENTS_HEADING = "What the grader checks:"


def requirements_block(texts: list[str]) -> str:
    """The requirement list as the learner reads it (a Markdown list, also fine in a docstring)."""
    return "\n".join([REQUIREMENTS_HEADING] + [f"- {text}" for text in texts]) if texts else ""


def _with_requirements(source: str, texts: list[str]) -> str:
    """``source`` with the requirement list appended inside its module docstring."""
    if not texts:
        return source
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return source  # parse_master reports the syntax error itself
    node = tree.body[0] if tree.body else None
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
        return source
    lines = source.splitlines(keepends=True)
    last = lines[node.end_lineno - 1].encode("utf-8")  # end_col_offset counts UTF-8 bytes
    before = last[: node.end_col_offset - 3].decode("utf-8")
    closing_and_rest = last[node.end_col_offset - 3 :].decode("utf-8")
    block = requirements_block(texts)
    if before.strip():  # the closing quotes end a line of text: """Make f one graph."""
        middle = [before.rstrip() + "\n\n" + block + "\n" + closing_and_rest]
    else:  # the closing quotes stand on their own line
        middle = ["\n", block + "\n", before + closing_and_rest]
    return "".join(lines[: node.end_lineno - 1] + middle + lines[node.end_lineno :])


def _requirement_texts(header: dict) -> list[str]:
    entries = header.get("requirements", [])
    return [str(entry.get("text", "")).strip() for entry in entries if isinstance(entry, dict)]


def starter_source(master_text: str, exercise_id: str, title: str, where: str = "<master>") -> str:
    """Render the learner's starting file from the master's text: STARTER code in, SOLUTION, FAIR,
    WRONG and GRADER regions out, the requirement list added to the task docstring."""
    header, items = _header_and_body(master_text, where)
    body = _render(items, where, lambda region: "uncomment" if region.kind == "STARTER" else "drop")
    return _with_requirements(_tidy("".join(_banner(exercise_id, title)) + body), _requirement_texts(header))


def _variant_names(items: list, kind: str) -> list[str]:
    names: list[str] = []
    for item in items:
        if isinstance(item, Region) and item.kind == kind and item.name not in names:
            names.append(item.name)
    return names


def variant_source(master_text: str, name: str, kind: str | None = None, where: str = "<master>",
                   exercise_id: str | None = None, title: str | None = None) -> str:
    """The variant ``name`` (a FAIR or WRONG region name) as a learner's file, in the starter's layout.

    At every site with a region of that name, its uncommented code replaces the solution; sites
    without one keep the solution code; a region of that name outside any site is inserted,
    uncommented, where it stands. ``kind`` ("FAIR" or "WRONG") is needed only when a fair and a
    wrong fix share the name. ``exercise_id`` and ``title`` fill the banner (default: from the header).
    """
    header, items = _header_and_body(master_text, where)
    kinds = [k for k in VARIANT_KINDS if name in _variant_names(items, k) and kind in (None, k)]
    if not kinds:
        known = [f"{k} {n}" for k in VARIANT_KINDS for n in _variant_names(items, k)]
        raise ExerciseFormatError(f"{where}: no {kind or 'FAIR or WRONG'} region is named {name!r}; known: {known or 'none'}")
    if len(kinds) > 1:
        raise ExerciseFormatError(f"{where}: {name!r} names both a FAIR and a WRONG variant; pass kind=\"FAIR\" or \"WRONG\"")
    chosen = kinds[0]
    replaced = {r.site for r in items if isinstance(r, Region) and r.kind == chosen and r.name == name and r.site is not None}

    def keep(region: Region) -> str:
        if region.kind == chosen and region.name == name:
            return "uncomment"
        if region.kind == "SOLUTION" and region.site not in replaced:
            return "code"
        return "drop"

    body = _render(items, where, keep)
    banner = _banner(exercise_id or Path(where).stem, title if title is not None else str(header.get("title", "")))
    return _with_requirements(_tidy("".join(banner) + body), _requirement_texts(header))


def solution_view(exercise: "Exercise") -> str:
    """The reference fix as a learner reads it: the starter's layout with the SOLUTION code in."""
    _, items = _header_and_body(exercise.master.read_text(encoding="utf-8"), exercise.id)
    body = _render(items, exercise.id, lambda region: "code" if region.kind == "SOLUTION" else "drop")
    return f"# Reference solution of {exercise.id}: {exercise.title}\n" + _tidy(body)


def _without_variants(code: str, where: str, offset: int = 0) -> str:
    """The master's code with every FAIR and WRONG region (markers included) removed."""
    items = _parse_body(code, where, offset)
    return _render(items, where, lambda region: "drop" if region.kind in VARIANT_KINDS else "marked")


def _expect(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ExerciseFormatError(f"{where}: {message}")


def parse_master(path: Path) -> Exercise:
    """Parse and validate one master file (once per process for the same path and text)."""
    return _parse_master_text(Path(path), Path(path).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=512)
def _parse_master_text(path: Path, text: str) -> Exercise:
    # Validating a master renders every variant of it (seconds for the whole course), and the CLI,
    # the grader and every test module discover the course: the same file is validated once.
    where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    header, code = split_header(text, where)
    exercise_id = path.stem
    _expect(ID_PATTERN.match(exercise_id) is not None, where, "the file name must be a valid id: [a-z][a-z0-9_], at most 32 characters")
    chapter = path.parent.name
    _expect(CHAPTER_PATTERN.match(chapter) is not None, where, "masters live in solutions/NN_topic/")
    _expect(header.get("format_version") == FORMAT_VERSION, where, f"set format_version = {FORMAT_VERSION}")
    for key in ("title", "entry", "syllabus", "checks", "starter_fails", "hints"):
        _expect(key in header, where, f"the header needs '{key}'")
    known = {"format_version", "title", "syllabus", "section", "entry", "factory", "compile", "submission_may_set",
             "allow_config", "checks", "starter_fails", "hints", "timeout", "config_may_add", "driver", "scan_allow",
             "requirements", "fair", "wrong", "capstone"}
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
    _expect(header.get("capstone", False) in (True, False), where, "capstone is true or false")
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
        if kind == "speed":
            _expect(params.get("against", "eager") in ("eager", "starter", "starter_eager"), where,
                    "speed.against is \"eager\", \"starter\" or \"starter_eager\"")
            _expect(params.get("mode", "steady") in ("steady", "end_to_end"), where, "speed.mode is \"steady\" or \"end_to_end\"")
            _expect(params.get("against") != "starter_eager" or params.get("mode", "steady") == "steady", where,
                    "speed.against = \"starter_eager\" times warm schedules: mode \"steady\"")
            _expect("eager_min_ratio" not in params or params.get("against", "eager") != "eager", where,
                    "speed.eager_min_ratio needs against = \"starter\" or \"starter_eager\" (against eager, min_ratio is that threshold)")
            _expect(isinstance(params.get("inputs", "calls"), str) and params.get("inputs", "calls").isidentifier(), where,
                    "speed.inputs names a master function of gen (in the GRADER region) drawing the timed inputs")
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
            _expect(isinstance(params.get("reaches", ""), str), where,
                    "nonstrict.reaches names a master function reaches(module, args) -> the value that must reach the graph")
            _expect(isinstance(params.get("pure", False), bool), where, "nonstrict.pure is true or false")
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
            _expect(not params.get("constant_truth") or (params.get("variants") and params.get("constant")), where,
                    "answers: `constant_truth` names the truth of `constant` when `variants` is set (without variants, "
                    "`truth` is the constant's truth)")
        if kind == "bisect":
            _expect(isinstance(params.get("agree_with"), str), where, "bisect.agree_with names the answers check whose truth is the grader's bisection")
            _expect(isinstance(params.get("control", ""), str), where,
                    "bisect.control names the namespace of the planted operators (their decompositions are taken out for the control bisection)")
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
    # A timing against the starter compares the fix's answers on fresh inputs with the starter's (sandbox/kinds/core.py).
    _expect(not any((c.kind == "speed" and c.params.get("against") in ("starter", "starter_eager")) or c.kind == "compile_time"
                    for c in checks)
            or not any(c.kind == "correct" and c.name in starter_fails for c in checks), where,
            "a speed check against the starter, or a compile_time check, compares the fix's answers with the starter's: "
            "the starter must answer as the reference does (no `correct` check in starter_fails)")
    hints = [str(h).strip() for h in header["hints"]]
    _expect(len(hints) >= 2 and all(hints), where, "give at least two non-empty hints (a ladder: where, then how)")

    requirements = _requirements(header, names, where)
    fair, wrong = _variant_entries(header, requirements, where)

    # Regions must pair up and the starter must be valid Python with a TODO at the place to change.
    _, items = _header_and_body(text, where)
    regions = [item for item in items if isinstance(item, Region)]
    kinds = {region.kind for region in regions}
    _expect("SOLUTION" in kinds and "STARTER" in kinds, where, "mark the fix with SOLUTION and the broken code with STARTER")
    _check_variant_regions(regions, fair, wrong, where)
    starter = starter_source(text, exercise_id, header["title"], where)
    try:
        syntax.parse(starter)
    except SyntaxError as exc:
        raise ExerciseFormatError(f"{where}: the generated starter is not valid Python: {exc}") from None
    _expect("TODO" in starter, where, "the starter must contain a '# TODO' at the place to change")
    try:
        module = syntax.parse(text)
    except SyntaxError as exc:
        raise ExerciseFormatError(f"{where}: the master is not valid Python: {exc}") from None
    statement = (ast.get_docstring(module) or "").strip()
    _expect(bool(statement), where, "start the code with a docstring that states the task")
    _check_variants_render(text, exercise_id, str(header["title"]), fair, wrong, where)
    task = statement + ("\n\n" + requirements_block([r.text for r in requirements]) if requirements else "")

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
        task=task,
        master=path,
        scan_allow=[str(rule) for rule in header.get("scan_allow", [])],
        statement=statement,
        requirements=requirements,
        fair=fair,
        wrong=wrong,
        capstone=header.get("capstone", False) is True,
    )


def _table(header: dict, key: str, where: str) -> list[dict]:
    entries = header.get(key, [])
    _expect(isinstance(entries, list) and all(isinstance(e, dict) for e in entries), where,
            f"'{key}' is a list of tables: write each entry as [[{key}]]")
    return entries


def _keys(entry: dict, required: set[str], label: str, where: str) -> None:
    missing, extra = required - set(entry), set(entry) - required
    _expect(not missing, where, f"{label} needs {sorted(missing)}")
    _expect(not extra, where, f"{label} does not take {sorted(extra)} (it takes {sorted(required)})")


def _text(value, label: str, where: str) -> str:
    _expect(isinstance(value, str) and value.strip() != "", where, f"{label} must be a non-empty string")
    _expect("\n" not in value.strip(), where, f"{label} must be one line")
    _expect("\\" not in value and '"""' not in value and "'''" not in value, where,
            f"{label} must not contain a backslash or triple quotes (it is copied into the starter's docstring)")
    return value.strip()


def _requirements(header: dict, check_names: set[str], where: str) -> list[Requirement]:
    found: list[Requirement] = []
    for entry in _table(header, "requirements", where):
        rid = entry.get("id")
        label = f"requirement {rid!r}" if isinstance(rid, str) else "a [[requirements]] entry"
        _keys(entry, {"id", "text", "checks"}, label, where)
        _expect(isinstance(rid, str) and NAME_PATTERN.match(rid) is not None, where,
                f"{label}: id must match [a-z][a-z0-9_]*")
        _expect(all(r.id != rid for r in found), where, f"two requirements have the id {rid!r}")
        text = _text(entry["text"], f"requirement {rid!r}: text", where)
        checks = entry["checks"]
        _expect(isinstance(checks, list) and bool(checks) and all(isinstance(c, str) for c in checks), where,
                f"requirement {rid!r}: checks lists the names of the checks that enforce it (at least one)")
        unknown = [c for c in checks if c not in check_names]
        _expect(not unknown, where, f"requirement {rid!r} names unknown checks {unknown}; the checks are {sorted(check_names)}")
        _expect(len(set(checks)) == len(checks), where, f"requirement {rid!r} names a check twice")
        found.append(Requirement(rid, text, tuple(checks)))
    return found


def _variant_entries(header: dict, requirements: list[Requirement], where: str) -> tuple[list[FairFix], list[WrongFix]]:
    fair: list[FairFix] = []
    for entry in _table(header, "fair", where):
        name = entry.get("name")
        label = f"fair fix {name!r}" if isinstance(name, str) else "a [[fair]] entry"
        _keys(entry, {"name", "why"}, label, where)
        _expect(isinstance(name, str) and NAME_PATTERN.match(name) is not None, where, f"{label}: name must match [a-z][a-z0-9_]*")
        _expect(all(f.name != name for f in fair), where, f"two [[fair]] entries are named {name!r}")
        fair.append(FairFix(name, _text(entry["why"], f"{label}: why", where)))
    by_id = {r.id: r for r in requirements}
    wrong: list[WrongFix] = []
    for entry in _table(header, "wrong", where):
        name = entry.get("name")
        label = f"wrong fix {name!r}" if isinstance(name, str) else "a [[wrong]] entry"
        _keys(entry, {"name", "breaks", "fails", "message"}, label, where)
        _expect(isinstance(name, str) and NAME_PATTERN.match(name) is not None, where, f"{label}: name must match [a-z][a-z0-9_]*")
        _expect(all(w.name != name for w in wrong), where, f"two [[wrong]] entries are named {name!r}")
        breaks = entry["breaks"]
        _expect(breaks in by_id, where, f"{label}: breaks = {breaks!r} is not a requirement id; the ids are {sorted(by_id)}")
        fails = entry["fails"]
        _expect(isinstance(fails, list) and bool(fails) and all(isinstance(c, str) for c in fails), where,
                f"{label}: fails lists the checks that must fail (at least one)")
        outside = [c for c in fails if c not in by_id[breaks].checks]
        _expect(not outside, where, f"{label}: fails names {outside}, which do not enforce requirement {breaks!r} "
                f"(its checks are {list(by_id[breaks].checks)})")
        message = entry["message"]
        _expect(isinstance(message, str) and message.strip() != "", where, f"{label}: message is a regular expression the "
                "failing checks' messages must match")
        try:
            re.compile(message)
        except re.error as exc:
            raise ExerciseFormatError(f"{where}: {label}: message is not a valid regular expression: {exc}") from None
        wrong.append(WrongFix(name, breaks, tuple(fails), message))
    return fair, wrong


def _check_variant_regions(regions: list, fair: list, wrong: list, where: str) -> None:
    """Every FAIR/WRONG region has a header entry and every entry at least one region."""
    for kind, entries, table in (("FAIR", fair, "fair"), ("WRONG", wrong, "wrong")):
        declared = {e.name for e in entries}
        marked = {r.name for r in regions if r.kind == kind}
        for region in regions:
            if region.kind == kind and region.name not in declared:
                raise ExerciseFormatError(f"{where}:{region.line}: the {kind} region {region.name!r} has no [[{table}]] "
                                          f"entry in the header; add one with name = \"{region.name}\"")
        for name in sorted(declared - marked):
            raise ExerciseFormatError(f"{where}: [[{table}]] {name!r} has no '# BEGIN {kind} {name}' region in the code")


def _check_variants_render(text: str, exercise_id: str, title: str, fair: list, wrong: list, where: str) -> None:
    """Each variant is valid Python, and a FAIR one differs from the reference solution."""
    shared = {f.name for f in fair} & {w.name for w in wrong}
    solution = _code_shape(variant_free_solution(text, where))
    for kind, entries in (("FAIR", fair), ("WRONG", wrong)):
        for entry in entries:
            source = variant_source(text, entry.name, kind if entry.name in shared else None, where, exercise_id, title)
            try:
                shape = _code_shape(source)
            except SyntaxError as exc:
                raise ExerciseFormatError(f"{where}: the {kind} variant {entry.name!r} is not valid Python once uncommented: "
                                          f"{exc}") from None
            _expect(shape != solution, where, f"the {kind} variant {entry.name!r} is the reference solution itself "
                    "(same code once comments are dropped); it must differ from it")


def variant_free_solution(master_text: str, where: str = "<master>") -> str:
    """The solution as a learner's file: the starter's layout with every SOLUTION in (no GRADER)."""
    _, items = _header_and_body(master_text, where)
    return _render(items, where, lambda region: "code" if region.kind == "SOLUTION" else "drop")


def _code_shape(source: str) -> str:
    tree = syntax.parse(source)
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None), ast.Constant):
        tree.body = tree.body[1:]  # the docstring
    return ast.dump(tree)


def _sort_key(exercise: Exercise):
    section = tuple(int(p) for p in exercise.syllabus[0].split("."))
    return (exercise.chapter, exercise.capstone, section, exercise.id)


def discover(root: Path = SOLUTIONS) -> list[Exercise]:
    """Every exercise, in course order (chapter, then first syllabus ID, then id; a chapter's
    capstone last). A chapter has at most one capstone."""
    exercises = [parse_master(path) for path in sorted(root.glob("[0-9][0-9]_*/*.py"))]
    seen: dict[str, Path] = {}
    for exercise in exercises:
        if exercise.id in seen:
            raise ExerciseFormatError(f"exercise id {exercise.id!r} is used twice: {seen[exercise.id]} and {exercise.master}")
        seen[exercise.id] = exercise.master
    capstones: dict[str, str] = {}
    for exercise in exercises:
        if exercise.capstone and capstones.setdefault(exercise.chapter, exercise.id) != exercise.id:
            raise ExerciseFormatError(f"{exercise.master}: chapter {exercise.chapter} already has a capstone, "
                                      f"{capstones[exercise.chapter]!r}; a chapter ends with one")
    return sorted(exercises, key=_sort_key)


def load(exercise_id: str) -> Exercise:
    """Find one exercise by id; raises KeyError with the known ids when absent."""
    matches = list(SOLUTIONS.glob(f"[0-9][0-9]_*/{exercise_id}.py")) if ID_PATTERN.match(exercise_id) else []
    if not matches:
        raise KeyError(exercise_id)
    return parse_master(matches[0])

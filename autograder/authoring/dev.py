"""Maintainer checks (``python -m autograder dev check``): is every exercise honest and every file current?

For each exercise it proves, on the grader itself (warm gradings, in parallel):

- the starter fails its declared checks, and the master passes;
- the requirement <-> check table is complete both ways: every check enforces a requirement the
  task states, every requirement is enforced by a check (the parser) and has a WRONG variant;
- every FAIR variant (at least two) passes with full marks, on each seed;
- every WRONG variant fails, on each seed, at least the checks it declares, each with a message
  matching its ``message`` regex, and never passes;
- every check is seen failing by the starter or a WRONG variant (a check nothing fails is untested).

Exercises listed in ``no_requirements_yet.txt`` (beside this file) are reported as "no
requirements yet" instead of failing the table rules; the list only shrinks.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from autograder.authoring.sensitivity import insensitive
from autograder.engine.grader import grade
from autograder.format.build import lesson_sections, stale_files, syllabus_ids, unexpected_files
from autograder.format.exercise import COSTLY_KINDS, ROOT, Exercise, discover, variant_source
from autograder.format.result import FAILED, PASSED, SKIPPED

PENDING_FILE = Path(__file__).with_name("no_requirements_yet.txt")
# Two draws of the hidden inputs: a verdict that holds on one seed only is luck.
DEFAULT_SEEDS = (1234, 4321)


@dataclass
class Finding:
    exercise: str
    problem: str


@dataclass
class Row:
    """One line of dev check's table."""
    exercise: str
    requirements: str = ""  # "3", or "no requirements yet"
    starter: str = ""
    solution: str = ""
    fair: list = field(default_factory=list)  # one bool per (variant, seed): passed with full marks
    wrong: list = field(default_factory=list)  # one bool per (variant, seed): caught as declared
    seconds: float = 0.0


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    graded: dict = field(default_factory=dict)  # id -> (starter result, solution result)
    variants: dict = field(default_factory=dict)  # (id, kind, name, seed) -> result
    rows: list[Row] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def problems_of(self, exercise_id: str) -> list[str]:
        return [f.problem for f in self.findings if f.exercise == exercise_id]


def pending_requirements(path: Path = PENDING_FILE) -> set[str]:
    """Ids of the exercises whose masters have no [[requirements]] yet (the allow-list)."""
    if not path.is_file():
        return set()
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.add(line)
    return ids


# -- judging one grade ---------------------------------------------------------------------------

def starter_problem(exercise: Exercise, result) -> str | None:
    """Why a starter's grade does not prove the exercise honest, or None."""
    if result.status != FAILED:
        return f"the starting file should fail the grader but its status is {result.status}: {result.message}"
    failed = {c.name for c in result.checks if c.status == FAILED}
    # A timing check skipped in a structure-only run proves nothing either way; the structural
    # reasons (the format requires at least one) must still fail.
    unmeasured = {c.name for c in result.checks if c.status == SKIPPED and c.kind in COSTLY_KINDS}
    missing = [name for name in exercise.starter_fails if name not in failed and name not in unmeasured]
    if missing:
        return f"the starting file should fail {missing} (its declared reason) but those passed"
    return None


def solution_problem(exercise: Exercise, result) -> str | None:
    if result.status != PASSED:
        failed = [f"{c.name}: {c.message}" for c in result.checks if c.status == FAILED]
        return f"the solution should pass but is {result.status}: {result.message} {failed}"
    return None


def _short(message: str, limit: int = 300) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 3] + "..."


def fair_problem(exercise: Exercise, name: str, result) -> str | None:
    """Why a FAIR variant's grade is a false fail, or None (passed, every measured check full marks)."""
    if result.status != PASSED:
        failed = "; ".join(f"{c.name}: {_short(c.message)}" for c in result.checks if c.status == FAILED)
        return (f"FAIR {name} (seed {result.seed}) should pass but is {result.status} "
                f"({result.score}/{result.max_score}): {failed or _short(result.message)}")
    partial = [c.name for c in result.checks if c.status == PASSED and c.score < c.max_score]
    if partial:
        return f"FAIR {name} (seed {result.seed}) passed without full marks on {partial}"
    return None


def wrong_problem(exercise: Exercise, fix, result) -> str | None:
    """Why a WRONG variant's grade is not the declared catch, or None."""
    label = f"WRONG {fix.name} (seed {result.seed}, breaks {fix.breaks})"
    if result.status == PASSED:
        return f"{label} passes ({result.score}/{result.max_score}): no check catches it"
    by_name = {c.name: c for c in result.checks}
    problems = []
    for name in fix.fails:
        check = by_name.get(name)
        if check is None or check.status != FAILED:
            status = "missing" if check is None else f"{check.status}: {_short(check.message, 160)}"
            problems.append(f"its check {name!r} did not fail ({status})")
        elif not re.search(fix.message, check.message):
            problems.append(f"its check {name!r} failed with a message that does not match /{fix.message}/: "
                            f"{_short(check.message, 200)!r}")
    return f"{label}: " + "; ".join(problems) if problems else None


def table_findings(exercise: Exercise, pending: set[str]) -> list[str]:
    """The requirement <-> check table and the variant counts, from the master alone."""
    if exercise.id in pending:
        if exercise.requirements:
            return [f"it has [[requirements]] now: remove it from {PENDING_FILE.relative_to(ROOT)}"]
        return []
    if not exercise.requirements:
        return ["it has no [[requirements]]: list each requirement its task states, with the checks that enforce it"]
    problems = []
    for check in exercise.checks:
        if not exercise.requirements_for(check.name):
            problems.append(f"check {check.name!r} enforces no requirement: name it in the checks of the requirement "
                            "it enforces, or drop it")
    for requirement in exercise.requirements:
        if not any(w.breaks == requirement.id for w in exercise.wrong):
            problems.append(f"requirement {requirement.id!r} has no WRONG variant: add a [[wrong]] with "
                            f"breaks = \"{requirement.id}\" and its '# BEGIN WRONG name' region")
    for requirement in exercise.requirements:
        if requirement.text in exercise.statement:
            problems.append(f"the docstring repeats requirement {requirement.id!r}; the starter lists it from the "
                            "header already: drop it from the docstring")
    if len(exercise.fair) < 2:
        problems.append(f"it has {len(exercise.fair)} FAIR variant(s); it needs at least 2 that differ from the reference")
    return problems


def unfailed_checks(exercise: Exercise, starter, wrong_results: list) -> list[str]:
    """Checks that neither the starter nor any WRONG variant fails: nothing shows they can fail."""
    seen = {c.name for c in starter.checks if c.status == FAILED}
    for result in wrong_results:
        seen |= {c.name for c in result.checks if c.status == FAILED}
    return [c.name for c in exercise.checks if c.name not in seen and c.kind not in COSTLY_KINDS]


def static_findings(exercises: list[Exercise]) -> list[Finding]:
    findings = []
    for path in stale_files(exercises):
        findings.append(Finding("-", f"{path.relative_to(ROOT)} is stale or missing: run `python -m autograder build`"))
    for path in unexpected_files(exercises):
        findings.append(Finding("-", f"{path.relative_to(ROOT)} is not generated from any master in solutions/"))
    known = {sid for sid, _, _ in syllabus_ids()}
    sections = lesson_sections()
    for e in exercises:
        for sid in e.syllabus + [e.section] + [c.section for c in e.checks]:
            if sid not in known:
                findings.append(Finding(e.id, f"syllabus ID {sid} is not in SYLLABUS.md"))
        if not e.lesson.is_file():
            findings.append(Finding(e.id, f"its lesson {e.rel(e.lesson)} does not exist"))
        elif e.id not in e.lesson.read_text(encoding="utf-8"):
            findings.append(Finding(e.id, f"its lesson {e.rel(e.lesson)} never mentions it; link it from the lesson"))
        for sid in {e.section, *e.syllabus}:
            if sid in known and sections.get(sid) not in (None, e.rel(e.lesson)):
                findings.append(Finding(e.id, f"section {sid} is taught in {sections[sid]}, not in its chapter's lesson"))
    pending = pending_requirements()
    ids = {e.id for e in exercises}
    for stale in sorted(pending - ids):
        findings.append(Finding(stale, f"{PENDING_FILE.relative_to(ROOT)} lists it, but no master has that id"))
    for e in exercises:
        findings += [Finding(e.id, problem) for problem in table_findings(e, pending)]
    return findings


# -- grading -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    exercise: Exercise
    side: str  # "starter", "solution", "FAIR", "WRONG"
    name: str = ""
    seed: int = DEFAULT_SEEDS[0]
    time_fair_speed: bool = True  # False: a FAIR variant of an exercise timed only by `speed` checks is graded on structure

    @property
    def costly(self) -> bool:
        if self.side in ("starter",):
            return False
        if self.side == "FAIR" and not self.time_fair_speed:
            return {c.kind for c in self.exercise.checks if c.kind in COSTLY_KINDS} != {"speed"}
        if self.side == "WRONG":  # timing runs only when a declared failure is a timing check
            fix = next(w for w in self.exercise.wrong if w.name == self.name)
            return any(self.exercise.check(name).kind in COSTLY_KINDS for name in fix.fails)
        return True


def grade_variant(exercise: Exercise, kind: str, name: str, seed: int, costly: bool = True):
    """Grade the variant ``name`` as a learner's file would be graded (warm)."""
    text = variant_source(exercise.master.read_text(encoding="utf-8"), name, kind, exercise.rel(exercise.master),
                          exercise.id, exercise.title)
    with tempfile.TemporaryDirectory(prefix=f"variant-{exercise.id}-") as folder:
        path = Path(folder) / f"{exercise.id}.py"
        path.write_text(text, encoding="utf-8")
        return grade(exercise.id, path, seed=seed, warm=True, costly=costly)


def failed_only_on_timing(result) -> bool:
    """A failed grade whose failing checks are all timings (compile, guard or run time)."""
    failed = [c for c in result.checks if c.status == FAILED]
    return result.status == FAILED and bool(failed) and all(c.kind in COSTLY_KINDS for c in failed)


def _run(job: Job):
    started = time.perf_counter()

    def graded():
        if job.side == "starter":
            return grade(job.exercise.id, job.exercise.starter, seed=job.seed, warm=True, costly=False)
        if job.side == "solution":
            return grade(job.exercise.id, job.exercise.master, seed=job.seed, warm=True)
        return grade_variant(job.exercise, job.side, job.name, job.seed, job.costly)

    result = graded()
    if job.side in ("solution", "FAIR") and failed_only_on_timing(result):
        # A fix that must pass, failed by a timing alone: graded once more before it counts. On the
        # loaded machine that proves a whole course a timing is now and then the load's, not the
        # code's (docs/MEASUREMENTS.md, "Timing verdicts"); a WRONG variant is never graded twice.
        result = graded()
    return job, result, time.perf_counter() - started


def jobs_for(exercise: Exercise, seeds=DEFAULT_SEEDS, variants: bool = True, time_fair_speed: bool = True,
             sides: bool = True) -> list[Job]:
    jobs = [Job(exercise, "starter", seed=seeds[0]), Job(exercise, "solution", seed=seeds[0])] if sides else []
    if variants:
        for seed in seeds:
            jobs += [Job(exercise, "FAIR", f.name, seed, time_fair_speed) for f in exercise.fair]
            jobs += [Job(exercise, "WRONG", w.name, seed) for w in exercise.wrong]
    return jobs


def check(ids: list[str] | None = None, workers: int = 2, progress=None, seeds=DEFAULT_SEEDS,
          variants: bool = True, exercises: list[Exercise] | None = None, time_fair_speed: bool = True,
          graded=None) -> Report:
    """Run every proof on the chosen exercises (default: all). ``progress(done, total)`` is told
    after each grading. ``exercises`` replaces the discovered ones (tests). ``time_fair_speed=False``
    grades the FAIR variants of exercises timed only by ``speed`` checks on structure (CI's budget:
    the solution and the timing WRONG variants are still timed). ``graded(exercise_id, side)``
    (side "starter" or "master") gives the starter's and the solution's results graded elsewhere
    (the tests grade each once for all the tests that read them)."""
    everything = discover() if exercises is None else exercises
    chosen = [e for e in everything if not ids or e.id in ids]
    if exercises is None:
        wanted = {e.id for e in chosen} | {"-"}
        findings = [f for f in static_findings(everything) if f.exercise in wanted or not ids]
        findings += [Finding(eid, problem) for eid, problem in insensitive([e.id for e in chosen]).items()]
    else:
        pending = pending_requirements()
        findings = [Finding(e.id, p) for e in chosen for p in table_findings(e, pending)]
    report = Report(findings=findings)
    jobs = [job for e in chosen for job in jobs_for(e, tuple(seeds), variants, time_fair_speed, sides=graded is None)]
    if graded is not None:
        for e in chosen:
            report.graded[e.id] = (graded(e.id, "starter"), graded(e.id, "master"))
    seconds: dict[str, float] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for done, (job, result, took) in enumerate(pool.map(_run, jobs), start=1):
            seconds[job.exercise.id] = seconds.get(job.exercise.id, 0.0) + took
            if job.side in ("starter", "solution"):
                starter, solution = report.graded.get(job.exercise.id, (None, None))
                report.graded[job.exercise.id] = (result, solution) if job.side == "starter" else (starter, result)
            else:
                report.variants[(job.exercise.id, job.side, job.name, job.seed)] = result
            if progress:
                progress(done, len(jobs))
    pending = pending_requirements()
    for exercise in chosen:
        report.rows.append(_judge(exercise, report, pending, seconds.get(exercise.id, 0.0)))
    return report


def _judge(exercise: Exercise, report: Report, pending: set[str], seconds: float) -> Row:
    starter, solution = report.graded[exercise.id]
    row = Row(exercise.id, seconds=seconds,
              requirements="no requirements yet" if exercise.id in pending and not exercise.requirements
              else str(len(exercise.requirements)))
    for problem in (starter_problem(exercise, starter), solution_problem(exercise, solution)):
        if problem:
            report.findings.append(Finding(exercise.id, problem))
    row.starter = "fails" if starter_problem(exercise, starter) is None else "WRONG"
    row.solution = "passes" if solution_problem(exercise, solution) is None else "FAILS"
    wrong_results = []
    for (eid, kind, name, _seed), result in report.variants.items():
        if eid != exercise.id:
            continue
        if kind == "FAIR":
            problem = fair_problem(exercise, name, result)
            row.fair.append(problem is None)
        else:
            fix = next(w for w in exercise.wrong if w.name == name)
            problem = wrong_problem(exercise, fix, result)
            row.wrong.append(problem is None)
            wrong_results.append(result)
        if problem:
            report.findings.append(Finding(exercise.id, problem))
    if exercise.requirements and report.variants:
        for name in unfailed_checks(exercise, starter, wrong_results):
            report.findings.append(Finding(exercise.id, f"check {name!r} fails for neither the starter nor any WRONG "
                                                        "variant: add a WRONG variant it catches"))
    return row


# -- the command ---------------------------------------------------------------------------------

def _count(outcomes: list) -> str:
    return f"{sum(outcomes)}/{len(outcomes)}" if outcomes else "-"


def table(report: Report) -> str:
    """The one table dev check prints: a row per exercise, then its problems."""
    header = ("exercise", "requirements", "starter", "solution", "fair ok", "wrong caught", "time", "problems")
    rows = [header] + [(r.exercise, r.requirements, r.starter, r.solution, _count(r.fair), _count(r.wrong),
                        f"{r.seconds:.1f}s", str(len(report.problems_of(r.exercise)) or "-")) for r in report.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def main(args) -> int:
    """``python -m autograder dev check [IDS] [--workers N] [--seeds A,B] [--no-variants]``."""
    seeds = tuple(int(s) for s in str(args.seeds).split(",") if s.strip()) or DEFAULT_SEEDS
    started = time.perf_counter()

    def show(done, total):
        if sys.stderr.isatty():
            print(f"\r  graded {done}/{total}", end="", file=sys.stderr, flush=True)

    report = check(args.ids or None, workers=args.workers, progress=show, seeds=seeds, variants=not args.no_variants)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(table(report))
    for finding in report.findings:
        print(f"PROBLEM {finding.exercise}: {finding.problem}")
    took = time.perf_counter() - started
    print(f"dev check: OK ({took:.0f} s)" if report.ok else f"dev check: {len(report.findings)} problem(s) ({took:.0f} s)")
    return 0 if report.ok else 1

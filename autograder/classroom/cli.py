"""Command-line verbs for classrooms and graders of many submissions (nbgrader, Gradescope, batches).

``add_commands`` is called by ``cli.main_parser`` with its subparsers object. Every verb is a thin
layer over ``grade()``; the modules behind them are imported only when a verb runs, so ``list``
stays instant.

    python -m autograder nbgrader build --out build/nbgrader        # the nbgrader course directory
    python -m autograder nbgrader grade 01_dynamo_core --course build/nbgrader
    python -m autograder gradescope build --out build/gradescope/autograder.zip
    python -m autograder grade-batch SUBMISSIONS_DIR --workers 4
"""

from __future__ import annotations

import sys
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _ids(text: str | None) -> list[str] | None:
    return [item for item in (text or "").replace(",", " ").split() if item] or None


# -- nbgrader ------------------------------------------------------------------------------------

def _course(args) -> Path:
    from autograder.classroom.nbgrader_bridge import DEFAULT_OUT

    return Path(args.course or DEFAULT_OUT).resolve()


def cmd_nbgrader_build(args) -> int:
    from autograder.classroom import nbgrader_bridge as bridge

    out = Path(args.out or bridge.DEFAULT_OUT).resolve()
    if args.check:
        try:
            stale = bridge.stale_files(out)
        except FileNotFoundError as exc:
            return _usage(str(exc))
        for rel in stale:
            print(f"stale: {out / rel}")
        if stale:
            print(f"The nbgrader course in {out} is out of date with solutions/: run `{bridge.GENERATED_BY} --out {out}`.")
            return EXIT_FAILED
        print(f"The nbgrader course in {out} is up to date.")
        return EXIT_OK
    from autograder.classroom.term import parse_due

    try:
        options = bridge.BuildOptions(exercises=_ids(args.exercises), hide=list(args.hide or []),
                                      course_id=args.course_id or bridge.DEFAULT_COURSE_ID, due=parse_due(args.due),
                                      late_policy=args.late_policy or "none", fix_hint=args.with_fix_hint)
        written = bridge.build(out, options)
    except ValueError as exc:
        return _usage(str(exc))
    for path in written:
        print(f"wrote {path}")
    print(f"{len(written)} file(s) written; the course is in {out}. Next: cd {out} && nbgrader generate_assignment ASSIGNMENT")
    return EXIT_OK


def _run_nbgrader(args, *steps) -> int:
    from autograder.classroom import nbgrader_bridge as bridge

    course = _course(args)
    try:
        stale = bridge.stale_files(course)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    if stale:
        print(f"warning: {course} is out of date with solutions/ ({', '.join(stale)}); answers are graded with the "
              f"current masters. Rebuild with `{bridge.GENERATED_BY} --out {course}`.", file=sys.stderr)
    for step in steps:
        code = bridge.nbgrader(course, *step)
        if code != 0:
            print(f"nbgrader {step[0]} failed (exit status {code}); see its log above.", file=sys.stderr)
            return EXIT_FAILED
    return EXIT_OK


def _student_args(args) -> list[str]:
    extra = [f"--student={args.student}"] if getattr(args, "student", None) else []
    return extra + (["--force"] if getattr(args, "force", False) else [])


def cmd_nbgrader_generate(args) -> int:
    return _run_nbgrader(args, ["generate_assignment", args.assignment, *(["--force"] if args.force else [])])


def cmd_nbgrader_autograde(args) -> int:
    return _run_nbgrader(args, ["autograde", args.assignment, *_student_args(args)])


def cmd_nbgrader_feedback(args) -> int:
    return _run_nbgrader(args, ["generate_feedback", args.assignment, *_student_args(args)])


def cmd_nbgrader_export(args) -> int:
    return _run_nbgrader(args, ["export"])


def cmd_nbgrader_grade(args) -> int:
    from autograder.classroom import nbgrader_bridge as bridge
    from autograder.classroom.nbgrader_class import ClassOptions, grade_class
    from autograder.classroom.roster import RosterError
    from autograder.classroom.term import TermError

    course = _course(args)
    try:
        stale = bridge.stale_files(course)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    if stale:
        print(f"warning: {course} is out of date with solutions/ ({', '.join(stale)}); answers are graded with the "
              f"current masters. Rebuild with `{bridge.GENERATED_BY} --out {course}`.", file=sys.stderr)
    options = ClassOptions(course=course, assignment=args.assignment, student=args.student, force=args.force,
                           regrade=getattr(args, "regrade", False), roster=Path(args.roster) if args.roster else None,
                           workers=args.workers, timeout=args.timeout)
    try:
        return grade_class(options)
    except (ValueError, RosterError, TermError) as exc:
        return _usage(str(exc))


# -- Gradescope ----------------------------------------------------------------------------------

def cmd_gradescope_build(args) -> int:
    from autograder.classroom import gradescope

    try:
        path = gradescope.build_zip(Path(args.out or gradescope.DEFAULT_ZIP).resolve(), exercises=_ids(args.exercises),
                                    hide=list(args.hide or []), hidden_visibility=args.hidden_visibility)
    except ValueError as exc:
        return _usage(str(exc))
    print(f"wrote {path}: upload it as the Gradescope autograder (see docs/INSTRUCTORS.md).")
    return EXIT_OK


def cmd_gradescope_run(args) -> int:
    from autograder.classroom import gradescope

    results = gradescope.run(Path(args.root) if args.root else None, workers=args.workers)
    print(f"score {results.get('score')}; wrote {gradescope.results_path(Path(args.root) if args.root else None)}")
    return EXIT_OK


# -- batches -------------------------------------------------------------------------------------

def cmd_grade_batch(args) -> int:
    from autograder.classroom import batch

    try:
        shard = batch.parse_shard(args.shard)
        options = batch.BatchOptions(
            submissions=Path(args.submissions).resolve(), out=Path(args.out).resolve() if args.out else None,
            exercise=args.exercise, exercises=_ids(args.exercises), workers=args.workers, timeout=args.timeout,
            seed=args.seed, shard=shard, memory_limit_gb=args.memory_limit, force=args.force, junit=args.junit,
            summary_only=args.summary_only, cold=args.cold, regrade=args.regrade,
            roster=Path(args.roster).resolve() if args.roster else None, assignments=_ids(args.assignment),
            manifest=Path(args.manifest).resolve() if args.manifest else None, due=list(args.due or []),
            late_policy=args.late_policy or "none")
        return batch.main(options)
    except batch.BatchUsageError as exc:
        return _usage(str(exc))


# -- classroom mode ------------------------------------------------------------------------------

def cmd_classroom_release(args) -> int:
    from autograder.classroom.release import write_release

    out = Path(args.out).resolve()
    written = write_release(out, service_url=args.service_url or "", git=args.git)
    print(f"{len(written)} file(s) in the learner release {out} (no solutions/)"
          + ("; committed: push it to the branch your nbgitpuller link names" if args.git else ""))
    return EXIT_OK


def cmd_classroom_serve(args) -> int:
    from autograder.classroom.service import serve

    try:
        serve(Path(args.data).resolve(), port=args.port, workers=args.workers, hide=list(args.hide or []),
              fix_hint=args.with_fix_hint, exercises=_ids(args.exercises), timeout=args.timeout)
    except ValueError as exc:
        return _usage(str(exc))
    return EXIT_OK


def add_commands(sub) -> None:
    """Register the classroom verbs on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("nbgrader", help="nbgrader course: build it from solutions/, grade with the course grader")
    verbs = p.add_subparsers(dest="nbgrader_command", required=True)

    q = verbs.add_parser("build", help="write the nbgrader course directory (config, source notebooks) from solutions/")
    q.add_argument("--out", help="course directory (default: build/nbgrader)")
    q.add_argument("--exercises", help="only these exercise ids (comma-separated; default: all)")
    q.add_argument("--hide", action="append", metavar="ID:CHECK", help="hide a check from learners' feedback (repeatable)")
    q.add_argument("--course-id", help="nbgrader course id (default: torch-compile-course)")
    q.add_argument("--check", action="store_true", help="only check that the course in --out is up to date (exit 1 if stale)")
    q.add_argument("--due", action="append", metavar="ASSIGNMENT=WHEN",
                   help="due date of an assignment, ISO 8601 (UTC unless a zone is given); a bare WHEN: every assignment (repeatable)")
    q.add_argument("--late-policy", metavar="POLICY",
                   help="none (default), per-day:P (P %% of the score per started day late), cutoff:D (zero after D, e.g. 48h), or both")
    q.add_argument("--with-fix-hint", action="store_true", help="release the last hint of each exercise (it states the fix)")
    q.set_defaults(run=cmd_nbgrader_build)

    for name, handler, text in (
        ("generate", cmd_nbgrader_generate, "nbgrader generate_assignment: the release version of an assignment"),
        ("autograde", cmd_nbgrader_autograde, "nbgrader autograde, with the answers graded out of the kernel"),
        ("feedback", cmd_nbgrader_feedback, "nbgrader generate_feedback (hidden checks never shown)"),
        ("grade", cmd_nbgrader_grade, "the whole class in one command: autograde, feedback, export to grades.csv"),
    ):
        q = verbs.add_parser(name, help=text)
        q.add_argument("assignment", help="assignment id: the chapter folder, e.g. 01_dynamo_core")
        q.add_argument("--course", help="course directory (default: build/nbgrader)")
        if name != "generate":
            q.add_argument("--student", help="only this student")
        q.add_argument("--force", action="store_true", help="redo what was already done (nbgrader's --force)")
        if name == "grade":
            q.add_argument("--roster", help="CSV of the class (id, first_name, last_name, email): names in grades.csv, "
                                            "missing submissions listed")
            q.add_argument("--workers", type=int, default=2, help="answers graded at once across the class (default 2)")
            q.add_argument("--timeout", type=float, default=None, help="wall-clock limit per grading (default: each exercise's)")
            q.add_argument("--regrade", action="store_true", help="grade every submission again with the seed recorded "
                                                                  "for it, and redo every step")
        q.set_defaults(run=handler)
    q = verbs.add_parser("export", help="nbgrader export: grades.csv in the course directory")
    q.add_argument("--course", help="course directory (default: build/nbgrader)")
    q.set_defaults(run=cmd_nbgrader_export)

    p = sub.add_parser("gradescope", help="Gradescope autograder: build the zip, or run it on a submission")
    verbs = p.add_subparsers(dest="gradescope_command", required=True)
    q = verbs.add_parser("build", help="write the autograder zip (setup.sh, run_autograder, the course's grader)")
    q.add_argument("--out", help="zip path (default: build/gradescope/autograder.zip)")
    q.add_argument("--exercises", help="only these exercise ids (comma-separated; default: all)")
    q.add_argument("--hide", action="append", metavar="ID:CHECK", help="make a check a hidden test (repeatable)")
    q.add_argument("--hidden-visibility", default="hidden", choices=("hidden", "after_due_date", "after_published"),
                   help="Gradescope visibility of hidden checks (default: hidden)")
    q.set_defaults(run=cmd_gradescope_build)
    q = verbs.add_parser("run", help="grade /autograder/submission into /autograder/results/results.json (what run_autograder does)")
    q.add_argument("--root", help="the /autograder directory (default: $AUTOGRADER_ROOT or /autograder)")
    q.add_argument("--workers", type=int, default=1, help="exercises graded at once")
    q.set_defaults(run=cmd_gradescope_run)

    p = sub.add_parser("classroom", help="classroom mode: a learner release without solutions, graded by a JupyterHub service")
    verbs = p.add_subparsers(dest="classroom_command", required=True)
    q = verbs.add_parser("release", help="write the learner release (lessons, exercises, the package; no solutions/)")
    q.add_argument("--out", required=True, help="release folder (an nbgitpuller target with --git)")
    q.add_argument("--git", action="store_true", help="make --out a git repository and commit the release")
    q.add_argument("--service-url", help="the grading service's address, recorded in CLASSROOM.json")
    q.set_defaults(run=cmd_classroom_release)
    q = verbs.add_parser("serve", help="the grading service (run it as a JupyterHub managed service)")
    q.add_argument("--data", default="classroom-data", help="where attempts and hint progress are kept (made 0700)")
    q.add_argument("--port", type=int, default=None, help="port (default: from JUPYTERHUB_SERVICE_URL, else 10101)")
    q.add_argument("--workers", type=int, default=2, help="gradings at once (default 2)")
    q.add_argument("--exercises", help="only these exercise ids (default: all)")
    q.add_argument("--hide", action="append", metavar="ID:CHECK", help="hide a check from learners (repeatable)")
    q.add_argument("--with-fix-hint", action="store_true", help="give learners the last hint (the fix) too")
    q.add_argument("--timeout", type=float, default=None, help="wall-clock limit per grading (default: each exercise's)")
    q.set_defaults(run=cmd_classroom_serve)

    p = sub.add_parser("grade-batch", help="grade a whole class: isolated, parallel, resumable, shardable")
    p.add_argument("submissions", help="SUBMISSIONS_DIR: one folder per student holding ID.py files or notebooks "
                                       "(or, with --exercise, one file per student)")
    p.add_argument("--out", help="results directory (default: SUBMISSIONS_DIR-grades next to it)")
    p.add_argument("--exercise", help="every submission is this exercise: SUBMISSIONS_DIR/STUDENT.py (or .ipynb, or a folder)")
    p.add_argument("--exercises", help="only these exercise ids (comma-separated)")
    p.add_argument("--workers", type=int, default=2, help="gradings at once (default 2)")
    p.add_argument("--timeout", type=float, default=None, help="wall-clock limit per grading in seconds (default: the exercise's)")
    p.add_argument("--seed", type=int, default=None, help="seed for every grading (default: a new one each)")
    p.add_argument("--shard", default=None, metavar="I/N", help="grade only shard I of N (0 <= I < N), e.g. from a job array index")
    p.add_argument("--memory-limit", type=float, default=0, metavar="GIB",
                   help="lower the memory limit (RLIMIT_DATA) of each grading to GIB (default: the grader's own limit)")
    p.add_argument("--force", action="store_true", help="regrade submissions that already have a result")
    p.add_argument("--junit", metavar="PATH", help="also write JUnit XML of every result")
    p.add_argument("--summary-only", action="store_true", help="grade nothing; write the summary of the results there are (e.g. after shards)")
    p.add_argument("--cold", action="store_true", help="a fresh interpreter per grading instead of warm workers "
                                                       "(slower: about 3 s more per grading)")
    p.add_argument("--regrade", action="store_true", help="grade every submission again with the seed its last result "
                                                          "recorded; writes regrade.csv (what changed)")
    p.add_argument("--roster", help="CSV of the class (id, first_name, last_name, email): everyone is in the summary "
                                    "and lms.csv, with or without a submission")
    p.add_argument("--assignment", help="the chapter(s) the class was given (comma-separated): every exercise of them "
                                        "counts toward each student's maximum (default: every exercise anyone submitted)")
    p.add_argument("--manifest", help="CSV of submission times: student, submitted_at[, assignment or exercise] "
                                      "(default: SUBMISSIONS_DIR/manifest.csv if present; nbgrader's timestamp.txt otherwise)")
    p.add_argument("--due", action="append", metavar="ASSIGNMENT=WHEN", help="due date (ISO 8601; a bare WHEN: every assignment)")
    p.add_argument("--late-policy", metavar="POLICY", help="none (default), per-day:P, cutoff:D, or per-day:P,cutoff:D")
    p.set_defaults(run=cmd_grade_batch)

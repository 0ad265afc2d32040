"""``python -m autograder``: a thin command line over ``grade()``.

Exit status: 0 when the grade passed (or the command succeeded), 1 when it did not, 2 for a usage
error (unknown exercise id, missing file, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from autograder.format import build as builder
from autograder.learner import progress, workspace
from autograder.learner.names import unknown_id_message
from autograder.format.exercise import ExerciseFormatError, discover, load, requirements_block
from autograder.engine.grader import grade
from autograder.learner.report import print_result
from autograder.learner.waiting import terminal_progress

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _exercise(exercise_id: str):
    try:
        return load(exercise_id)
    except KeyError:
        raise UsageError(unknown_id_message(exercise_id, [e.id for e in discover()])) from None


def cmd_list(args) -> int:
    exercises = discover()
    if args.json:
        print(json.dumps([e.summary() for e in exercises], indent=1))
        return EXIT_OK
    state = progress.load()
    chapter = None
    for e in exercises:
        if e.chapter != chapter:
            chapter = e.chapter
            print(f"\nChapter {e.chapter_number} ({e.chapter}, lesson {e.rel(e.lesson)})")
        done = "done" if state.get(e.id, {}).get("passed") else "    "
        needs = f"  [needs {', '.join(e.needs)}]" if e.needs else ""
        print(f"  {done}  {e.id:<24} {', '.join(e.syllabus):<10} {e.title}{needs}")
    return EXIT_OK


def cmd_grade(args) -> int:
    _exercise(args.id)
    try:
        result = grade(args.id, args.path, seed=args.seed, timeout=args.timeout)
    except FileNotFoundError:
        raise UsageError(f"no such file: {args.path}") from None
    output = "json" if args.json else args.format
    if output == "json":
        print(result.to_json())
    elif output == "junit":
        from autograder.classroom.junit import to_junit

        print(to_junit([result]), end="")
    else:
        print_result(result)
    return EXIT_OK if result.passed else EXIT_FAILED


def _next_unsolved():
    for e in discover():
        if not progress.passed(e.id):
            return e
    return None


def cmd_check(args) -> int:
    exercise = _exercise(args.id) if args.id else _next_unsolved()
    if exercise is None:
        print("Every exercise has passed. Well done.")
        return EXIT_OK
    return EXIT_OK if _check_and_record(exercise, args.seed).passed else EXIT_FAILED


def _check_and_record(exercise, seed=None, warm=False):
    copy = workspace.ensure_copy(exercise)
    print(f"Checking {workspace.shown(copy)} ({exercise.title}) ...", flush=True)
    with terminal_progress(exercise):
        result = grade(exercise.id, copy, seed=seed, warm=warm)
    print_result(result)
    progress.record_result(exercise.id, result.passed, result.score, result.max_score)
    return result


def cmd_watch(args) -> int:
    """Re-check the current exercise whenever its file is saved; move on after a pass."""
    import time

    exercise = _exercise(args.id) if args.id else _next_unsolved()
    while exercise is not None:
        copy = workspace.ensure_copy(exercise)
        print(f"\nWatching {workspace.shown(copy)}. Save the file to check it; Ctrl-C to stop.", flush=True)
        last = None
        while True:
            stamp = copy.stat().st_mtime_ns if copy.exists() else None
            if stamp != last:
                last = stamp
                if _check_and_record(exercise, warm=True).passed:
                    break
            if args.once:
                return EXIT_FAILED
            time.sleep(args.interval)
        if args.once or args.id:
            return EXIT_OK
        exercise = _next_unsolved()
    print("Every exercise has passed. Well done.")
    return EXIT_OK


def cmd_progress(args) -> int:
    exercises = discover()
    state = progress.load()
    chapters: dict[str, list] = {}
    for e in exercises:
        chapters.setdefault(e.chapter, []).append(e)
    total_done = total_points = total_max = 0
    rows = []
    for chapter, items in chapters.items():
        done = sum(1 for e in items if state.get(e.id, {}).get("passed"))
        points = sum(min(state.get(e.id, {}).get("best", 0), e.max_score) for e in items)
        maximum = sum(e.max_score for e in items)
        pending = [e.id for e in items if not state.get(e.id, {}).get("passed")]
        rows.append((chapter, f"{done}/{len(items)}", f"{points}/{maximum}", ", ".join(pending) or "-"))
        total_done, total_points, total_max = total_done + done, total_points + points, total_max + maximum
    if args.json:
        print(json.dumps({"chapters": [dict(zip(("chapter", "passed", "points", "pending"), r)) for r in rows],
                          "passed": total_done, "exercises": len(exercises), "points": total_points, "max_points": total_max}))
        return EXIT_OK
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'chapter':<{width}}  passed  points  still to do")
    for chapter, done, points, pending in rows:
        print(f"{chapter:<{width}}  {done:>6}  {points:>6}  {pending}")
    print(f"{'all':<{width}}  {total_done:>3}/{len(exercises):<2}  {total_points:>3}/{total_max:<3}")
    return EXIT_OK


def cmd_solution(args) -> int:
    from autograder.format.exercise import solution_view

    exercise = _exercise(args.id)
    if not (progress.passed(exercise.id) or args.force):
        print(f"The reference solution opens after you pass {exercise.id} "
              f"(or with --force, if you have decided to look). Try `./course hint {exercise.id}` first.")
        return EXIT_FAILED
    print(solution_view(exercise))
    return EXIT_OK


def cmd_hint(args) -> int:
    exercise = _exercise(args.id)
    if args.all:
        for number, text in enumerate(exercise.hints, start=1):
            print(f"Hint {number}/{len(exercise.hints)}: {text}\n")
        return EXIT_OK
    level = progress.next_hint_level(exercise.id, len(exercise.hints))
    print(f"Hint {level + 1}/{len(exercise.hints)} for {exercise.id}: {exercise.hints[level]}")
    if level + 1 < len(exercise.hints):
        print(f"(Run `./course hint {exercise.id}` again for the next one.)")
    if exercise.requirements:
        print("\n" + requirements_block([r.text for r in exercise.requirements]))
    return EXIT_OK


def cmd_reset(args) -> int:
    lesson = workspace.find_lesson(args.id)
    if lesson is not None:
        path, kept = workspace.reset_lesson(lesson)
        what = f"Made {workspace.shown(path)} afresh from {workspace.shown(lesson)}"
    else:
        path, kept = workspace.reset_copy(_exercise(args.id))
        what = f"Restored {workspace.shown(path)} to its starting state"
    print(f"{what}; your previous file is kept as {workspace.shown(kept)}." if kept else f"{what}.")
    return EXIT_OK


def cmd_build(args) -> int:
    written = builder.build()
    for path in written:
        print(f"{'wrote' if path.exists() else 'deleted'} {path.relative_to(builder.ROOT)}")
    extra = builder.unexpected_files()
    for path in extra:
        print(f"warning: {path.relative_to(builder.ROOT)} is not generated from any master", file=sys.stderr)
    print(f"{len(written)} file(s) written.")
    return EXIT_OK


def cmd_dev_check(args) -> int:
    from autograder.authoring import dev

    return dev.main(args)


def cmd_drift(args) -> int:
    """Run every drift alarm and prove every starter still fails for its reason, on the installed torch."""
    from autograder.authoring import drift_report

    rows = []
    if not args.starters_only:
        rows += drift_report.alarm_rows(costly=not args.fast)
    if not args.alarms_only:
        rows += drift_report.starter_rows(args.ids or None, workers=args.workers)
    import importlib.metadata

    version = importlib.metadata.version("torch")
    if args.json:
        print(json.dumps({"torch": version, "rows": [r.as_dict() for r in rows]}))
    else:
        print(drift_report.render(rows, version))
    return EXIT_OK if all(r.holds for r in rows) else EXIT_FAILED


def cmd_dev_new(args) -> int:
    from autograder.format.exercise import CHAPTER_PATTERN, ID_PATTERN, SOLUTIONS

    if not ID_PATTERN.match(args.id):
        raise UsageError("an id is [a-z][a-z0-9_], at most 32 characters")
    if not CHAPTER_PATTERN.match(args.chapter):
        raise UsageError("the chapter is a folder name like 02_graph_breaks")
    try:
        load(args.id)
        raise UsageError(f"exercise {args.id!r} already exists")
    except KeyError:
        pass
    template = (builder.ROOT / "autograder" / "authoring" / "templates" / "exercise.py").read_text(encoding="utf-8")
    template = template.replace('syllabus = ["1.1"]', f'syllabus = ["{int(args.chapter[:2])}.1"]')
    path = SOLUTIONS / args.chapter / f"{args.id}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(template, encoding="utf-8")
    print(f"wrote {path.relative_to(builder.ROOT)}: edit it, then run `python -m autograder build` "
          f"and `python -m autograder dev check {args.id}`.")
    return EXIT_OK


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade and explore the torch.compile course exercises.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the exercises (with --json: one object per exercise)")
    p.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    p.set_defaults(run=cmd_list)

    p = sub.add_parser("grade", help="grade a file as a submission for an exercise")
    p.add_argument("id", help="exercise id, see `list`")
    p.add_argument("path", help="the submission: an edited exercise .py file")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object with the result")
    p.add_argument("--format", choices=("text", "json", "junit"), default="text",
                   help="text (default), json (the same as --json) or junit (JUnit XML for CI dashboards)")
    p.add_argument("--seed", type=int, default=None, help="seed for the hidden inputs (default: a new one each time)")
    p.add_argument("--timeout", type=float, default=None, help="wall-clock limit in seconds (default: the exercise's)")
    p.set_defaults(run=cmd_grade)

    p = sub.add_parser("check", help="grade your copy (workspace/exercises/...) and explain the result")
    p.add_argument("id", nargs="?", help="exercise id (default: the next one you have not passed)")
    p.add_argument("--seed", type=int, default=None, help="seed for the hidden inputs")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("watch", help="re-check an exercise every time you save it, then move on to the next")
    p.add_argument("id", nargs="?", help="exercise id (default: the next one you have not passed)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between looks at the file")
    p.add_argument("--once", action="store_true", help="check once and stop (for scripts)")
    p.set_defaults(run=cmd_watch)

    p = sub.add_parser("progress", help="what you have passed, per chapter")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=cmd_progress)

    p = sub.add_parser("solution", help="show the reference solution of an exercise you have passed")
    p.add_argument("id", help="exercise id")
    p.add_argument("--force", action="store_true", help="show it even though you have not passed yet")
    p.set_defaults(run=cmd_solution)

    p = sub.add_parser("hint", help="show the next hint for an exercise")
    p.add_argument("id", help="exercise id")
    p.add_argument("--all", action="store_true", help="show every hint at once")
    p.set_defaults(run=cmd_hint)

    p = sub.add_parser("reset", help="restore an exercise's starting file, or make a lesson's notebook afresh (the old one is kept as a backup)")
    p.add_argument("id", help="exercise id, or a lesson (01, 01_dynamo_core)")
    p.set_defaults(run=cmd_reset)

    p = sub.add_parser("build", help="regenerate exercises/ and the index files from solutions/")
    p.set_defaults(run=cmd_build)

    p = sub.add_parser("dev", help="maintainer commands")
    dev_sub = p.add_subparsers(dest="dev_command", required=True)
    q = dev_sub.add_parser("check", help="prove every starter fails for its declared reason, every solution passes, every "
                           "FAIR variant passes and every WRONG one is caught, the requirement table is complete, files are current")
    q.add_argument("ids", nargs="*", help="only these exercises (default: all)")
    q.add_argument("--workers", type=int, default=2, help="gradings run at once")
    q.add_argument("--seeds", default="1234,4321", help="comma-separated seeds each variant is graded on (default: 1234,4321)")
    q.add_argument("--no-variants", action="store_true", help="grade only starters and solutions (the table rules still hold)")
    q.set_defaults(run=cmd_dev_check)
    q = dev_sub.add_parser("new", help="start a new exercise master from the template")
    q.add_argument("id", help="the new exercise id (also its file name)")
    q.add_argument("chapter", help="chapter folder, e.g. 02_graph_breaks")
    q.set_defaults(run=cmd_dev_new)

    p = sub.add_parser("drift", help="does the installed torch still do what the lessons say? (drift alarms and starters)")
    p.add_argument("ids", nargs="*", help="only these exercises' starters (default: all)")
    p.add_argument("--alarms-only", action="store_true", help="run the drift alarms only")
    p.add_argument("--starters-only", action="store_true", help="grade the starters only")
    p.add_argument("--fast", action="store_true", help="skip the alarms that compile with Inductor")
    p.add_argument("--workers", type=int, default=2, help="starter gradings run at once")
    p.add_argument("--json", action="store_true", help="print one JSON object with every row")
    p.set_defaults(run=cmd_drift)

    from autograder.classroom import cli as classroom_cli

    classroom_cli.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = main_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ExerciseFormatError as exc:
        print(f"error: an exercise master is malformed: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C in watch or check: stop, without a traceback
        print("\nStopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `list | head`: the reader left; say nothing more
        _silence_stdout()
        return EXIT_FAILED


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass

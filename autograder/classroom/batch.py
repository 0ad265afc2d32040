"""``grade-batch``: grade a whole class, one isolated child per submission, resumable and shardable.

    python -m autograder grade-batch SUBMISSIONS_DIR [--out DIR] [--workers N] [--shard I/N] [--cold]

Where the submissions are (``SUBMISSIONS_DIR``):

- one folder per student. In it (at any depth) ``<exercise id>.py`` is that exercise's submission
  (the learner's edited ``exercises/NN_topic/<id>.py``), and a notebook contributes its answer
  cells (``# ANSWER <id>:``; the nbgrader assignment notebook works as it is, so nbgrader's
  ``submitted/`` folder can be graded directly). A ``.py`` file wins over a notebook.
- with ``--exercise ID``: every entry is one student's submission of that exercise:
  ``<student>.py``, ``<student>.ipynb``, or a folder ``<student>/`` holding ``ID.py`` (or one ``.py``).

What it writes (``--out``, default ``SUBMISSIONS_DIR-grades`` next to it):

- ``results/<student>/<exercise>.json``: one file per submission, written atomically (a temporary
  file, then ``os.replace``) as soon as that grading ends, holding the Result, the submission's
  sha256 and the run that graded it. A rerun skips every submission whose result exists for the
  same content, so an interrupted batch resumes where it stopped and never grades twice;
- ``summary.csv`` and ``summary.json`` at the end (``summary-shard-I-of-N.*`` for a shard;
  ``--summary-only`` writes the whole class's summary from the results there are);
- ``batch-log.jsonl``: one line per event (start, graded, end) of every run.

Each grading runs in a fresh grading child with a wall-clock limit and the grader's own resource
limits (CPU time, memory, no core dumps; as root it runs as nobody). By default the batch
holds ``--workers`` warm workers (zygote.py: one process per worker with torch imported, which
forks the grading child of each grading, about 0.5 s instead of 3 s to start; the batch calls
``grade(..., warm=True)``). ``--memory-limit`` lowers the memory cap (RLIMIT_DATA) of every grading child.
If the batch process dies (even by SIGKILL), each warm worker kills its grading child's session
and exits at once (its control pipe closes; on Linux also ``PR_SET_PDEATHSIG``). A submission that
loops, eats memory, crashes or kills its own process (or its warm worker, which is then restarted)
gets a result that says so; the batch goes on.

``--cold`` runs each grading in a worker process of its own (``python -I``) that calls ``grade()``
(a fresh interpreter per grading: slower, about 3 s more each). That worker applies
``--memory-limit`` to itself (the grading child inherits it), forbids core dumps and, if the batch
process dies, kills the grading child and everything it started.

``--shard I/N`` keeps the submissions whose ``student/exercise`` key hashes to I modulo N, so any
batch system can fan the class out: Kubernetes Indexed Jobs (``$JOB_COMPLETION_INDEX``), Slurm job
arrays (``$SLURM_ARRAY_TASK_ID``). See docs/INSTRUCTORS.md.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.format.exercise import ROOT, discover, load
from autograder.format.result import ERROR, PASSED, Result

FORMAT = 1
BACKSTOP_S = 120  # beyond the grading's own limit, before the batch kills a worker
SUMMARY_FIELDS = ["student", "exercise", "status", "score", "max_score", "message", "duration_s", "seed", "submission", "graded_at",
                  "submitted_at", "flags"]
_SKIP_PARTS = {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git"}
MANIFEST_NAME = "manifest.csv"  # SUBMISSIONS_DIR/manifest.csv: submission times, read when --manifest is not given


class BatchUsageError(Exception):
    pass


@dataclass(frozen=True)
class Job:
    student: str
    exercise: str
    path: Path
    label: str  # how reports name the submission: its path under SUBMISSIONS_DIR
    source: str | None = None  # a notebook's answer cell; None: the file is graded as it is
    digest: str = ""
    problem: str = ""  # set: nothing can be graded (an answer lost in a damaged notebook); the result says why
    flags: tuple = ()  # why this submission needs the instructor's look (a damaged notebook it came from)
    submitted_at: str = ""  # ISO time, from nbgrader's timestamp.txt in the student's folder (or the manifest)
    seed: int | None = None  # set for a regrade: the seed the last grading recorded

    @property
    def key(self) -> str:
        return f"{self.student}/{self.exercise}"


@dataclass
class BatchOptions:
    submissions: Path
    out: Path | None = None
    exercise: str | None = None
    exercises: list[str] | None = None
    workers: int = 2
    timeout: float | None = None
    seed: int | None = None
    shard: tuple[int, int] | None = None
    memory_limit_gb: float = 0  # 0: the grader's own limit only
    cold: bool = False  # a worker process (a fresh interpreter) per grading instead of warm workers
    force: bool = False
    junit: str | None = None
    summary_only: bool = False
    regrade: bool = False  # grade everything again, each with the seed its result recorded
    roster: Path | None = None  # CSV of the class (roster.py): missing students listed, names in lms.csv
    assignments: list[str] | None = None  # chapters whose every exercise the class was given
    manifest: Path | None = None  # CSV of submission times (term.read_manifest)
    due: list[str] = field(default_factory=list)  # "ASSIGNMENT=WHEN" items (term.parse_due)
    late_policy: str = "none"
    stream: object = field(default=None, repr=False)  # progress goes here (default: stderr)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or int(match[2]) < 1 or not 0 <= int(match[1]) < int(match[2]):
        raise BatchUsageError(f"--shard takes I/N with 0 <= I < N (e.g. 0/4), not {text!r}")
    return int(match[1]), int(match[2])


def shard_of(job: Job, count: int) -> int:
    """Stable: depends only on the submission's key, not on what else is in the folder."""
    return int(hashlib.sha256(job.key.encode()).hexdigest()[:12], 16) % count


def safe_name(name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._@+-]", "_", name).lstrip(".") or "_"
    return safe if safe == name else f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


# -- finding the submissions ---------------------------------------------------------------------

def _files(folder: Path, notes: list[str] | None = None) -> list[Path]:
    """Every file under ``folder`` (not following links: a symbolic link is refused with a note)."""
    found, links = [], []
    for top, dirs, names in os.walk(folder):
        links += [Path(top) / d for d in dirs if (Path(top) / d).is_symlink()]
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_PARTS and not (Path(top) / d).is_symlink())
        for name in sorted(names):
            path = Path(top) / name
            (links if path.is_symlink() else found if path.is_file() else []).append(path)
    for link in links:
        if notes is not None:
            notes.append(f"skipped {link.relative_to(folder.parent)}: a symbolic link (submit the file or folder itself)")
    return sorted(found, key=lambda p: (len(p.relative_to(folder).parts), str(p)))


def _py_job(student: str, exercise: str, path: Path, base: Path, submitted_at: str = "") -> Job:
    return Job(student, exercise, path, path.relative_to(base).as_posix(), None, hashlib.sha256(path.read_bytes()).hexdigest(),
               submitted_at=submitted_at)


def _notebook_answers(path: Path, ids) -> tuple[dict, str]:
    """The answers of a notebook, read as far as it goes, and what was wrong with it ("" if sound)."""
    from autograder.classroom.nbgrader_bridge import find_answers
    from autograder.classroom.salvage import read_notebook

    reading = read_notebook(path)
    return find_answers(reading.notebook(), ids), reading.problem


def _nb_job(student: str, exercise: str, path: Path, base: Path, source: str, flags=(), submitted_at: str = "") -> Job:
    digest = hashlib.sha256(f"{exercise}\0{source}".encode()).hexdigest()
    return Job(student, exercise, path, f"{path.relative_to(base).as_posix()} (answer cell)", source, digest,
               flags=tuple(flags), submitted_at=submitted_at)


def _lost_job(student: str, exercise: str, path: Path, base: Path, problem: str) -> Job:
    message = (f"Your notebook {path.relative_to(base).as_posix()} was damaged ({problem}) and the answer cell for "
               f"{exercise} could not be read back from it, so it scores 0. Your instructor has been told.")
    return Job(student, exercise, path, path.relative_to(base).as_posix(), None,
               hashlib.sha256(f"lost\0{exercise}\0{problem}".encode()).hexdigest(), problem=message,
               flags=(f"damaged notebook {path.name}: {problem}",))


def _chapter_exercises() -> dict[str, list[str]]:
    chapters: dict[str, list[str]] = {}
    for e in discover():
        chapters.setdefault(e.chapter, []).append(e.id)
    return chapters


def _timestamp(folder: Path) -> str:
    from autograder.classroom.term import iso, timestamp_in

    return iso(timestamp_in(folder)) if folder.is_dir() else ""


def discover_jobs(submissions: Path, exercise: str | None = None, exercises=None) -> tuple[list[Job], list[str]]:
    """Every submission under ``submissions`` (see the module docstring), and notes on what was skipped."""
    known = {e.id for e in discover()}
    ids = set(exercises) if exercises else known
    if exercises and not set(exercises) <= known:
        raise BatchUsageError(f"unknown exercise id(s): {', '.join(sorted(set(exercises) - known))}")
    if exercise is not None and exercise not in known:
        raise BatchUsageError(f"unknown exercise id {exercise!r}")
    chapters = _chapter_exercises()
    jobs: list[Job] = []
    notes: list[str] = []
    for entry in sorted(submissions.iterdir()):
        if entry.name.startswith(".") or entry.name in _SKIP_PARTS or entry.name == MANIFEST_NAME:
            continue
        if entry.is_symlink():
            notes.append(f"skipped {entry.name}: a symbolic link (submit the file or folder itself)")
            continue
        if exercise is not None:
            job = _single(entry, exercise, submissions, notes)
            if job is None:
                notes.append(f"skipped {entry.name}: no submission of {exercise} found")
            else:
                jobs.append(job)
            continue
        if not entry.is_dir():
            notes.append(f"skipped {entry.name}: not a student folder (use --exercise for one file per student)")
            continue
        when = _timestamp(entry)
        mine: dict[str, Job] = {}
        files = _files(entry, notes)
        for path in files:
            if path.suffix == ".py" and path.stem in ids and path.stem not in mine:
                mine[path.stem] = _py_job(entry.name, path.stem, path, submissions, when)
        for path in files:
            if path.suffix != ".ipynb":
                continue
            answers, problem = _notebook_answers(path, ids)
            flags = [f"damaged notebook {path.name}: {problem}"] if problem else []
            for exercise_id, answer in answers.items():
                if exercise_id not in mine:
                    mine[exercise_id] = _nb_job(entry.name, exercise_id, path, submissions, answer.source, flags, when)
            if problem:  # what the damaged notebook of a chapter should have held, and did not give back
                for exercise_id in chapters.get(path.stem, []):
                    if exercise_id in ids and exercise_id not in mine:
                        mine[exercise_id] = _lost_job(entry.name, exercise_id, path, submissions, problem)
                if not answers and path.stem not in chapters:
                    notes.append(f"{entry.name}: {path.relative_to(submissions).as_posix()} is damaged ({problem}) and "
                                 "nothing in it could be read; it is not named after a chapter, so no exercise was expected from it")
        if not mine:
            notes.append(f"skipped {entry.name}: no exercise files (ID.py) or answer cells in it")
        jobs.extend(mine[k] for k in sorted(mine))
    return jobs, notes


def _single(entry: Path, exercise: str, base: Path, notes: list[str]) -> Job | None:
    student = entry.stem if entry.is_file() else entry.name
    files = [entry] if entry.is_file() else _files(entry, notes)
    when = _timestamp(entry)
    scripts = [p for p in files if p.suffix == ".py"]
    exact = [p for p in scripts if p.name == f"{exercise}.py"]
    script = exact[0] if exact else scripts[0] if len(scripts) == 1 else None
    if script is not None:
        return _py_job(student, exercise, script, base, when)
    for path in files:
        if path.suffix == ".ipynb":
            answers, problem = _notebook_answers(path, [exercise])
            answer = answers.get(exercise)
            if answer is not None:
                return _nb_job(student, exercise, path, base, answer.source,
                               [f"damaged notebook {path.name}: {problem}"] if problem else [], when)
            if problem:
                return _lost_job(student, exercise, path, base, problem)
    return None


# -- results on disk -----------------------------------------------------------------------------

def result_path(out: Path, job: Job) -> Path:
    return out / "results" / safe_name(job.student) / f"{job.exercise}.json"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def read_record(out: Path, job: Job) -> dict | None:
    """The stored result of ``job``, if there is one for this exact submission."""
    path = result_path(out, job)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        Result.from_dict(record["result"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if record.get("sha256") != job.digest or record.get("exercise") != job.exercise or record.get("student") != job.student:
        return None
    return record


class EventLog:
    def __init__(self, path: Path, run_id: str):
        self.path, self.run_id, self.lock = path, run_id, threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, event: str, **data) -> None:
        line = json.dumps({"time": _now(), "run": self.run_id, "event": event, **data}) + "\n"
        with self.lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# -- the worker: one process per grading ---------------------------------------------------------

WORKER_LAUNCH = "import sys; sys.path.insert(0, sys.argv[1]); from autograder.classroom.batch import worker_main; worker_main()"


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def kill_descendants() -> None:
    """SIGKILL every process this one started (and their process groups: the grading child runs in
    a session of its own, with whatever the submission started)."""
    own_group = os.getpgid(0)
    for pid in _descendants(os.getpid()):
        try:
            group = os.getpgid(pid)
            if group != own_group:
                os.killpg(group, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _apply_limits(job: dict) -> None:
    import resource

    def limit(kind, soft, hard=None):
        hard = soft if hard is None else hard
        current = resource.getrlimit(kind)[1]
        if current != resource.RLIM_INFINITY:
            hard = min(hard, current)
            soft = min(soft, hard)
        resource.setrlimit(kind, (soft, hard))

    limit(resource.RLIMIT_CORE, 0)
    if job.get("memory_limit_gb"):  # memory written, not address space (see sandbox/limits.py)
        limit(resource.RLIMIT_DATA, int(job["memory_limit_gb"] * 2**30))
    # A backstop for a grading child orphaned by a SIGKILLed worker: it cannot spin forever.
    cpu = int(job["limit"] * max(2, os.cpu_count() or 2) + 60)
    limit(resource.RLIMIT_CPU, cpu, cpu + 10)


def worker_main() -> None:
    """One grading: read the job on stdin, print the Result as one JSON line on stdout."""
    job = json.loads(sys.stdin.readline())
    parent = int(job["parent"])  # not os.getppid(): the batch may already be dead by now
    if os.getppid() != parent:
        os._exit(70)
    _apply_limits(job)

    def stop(signum, frame):
        kill_descendants()
        os._exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    box: dict = {}

    def work():
        try:
            box["result"] = _grade(job)
        except BaseException as exc:  # noqa: BLE001 - reported to the batch, which records it
            box["error"] = f"{type(exc).__name__}: {exc}"

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.5)
        if os.getppid() != parent:  # the batch died: take everything this grading started with us
            kill_descendants()
            os._exit(70)
    if "result" in box:
        sys.stdout.write(json.dumps(box["result"]) + "\n")
        sys.stdout.flush()
        return
    print(box.get("error", "no result"), file=sys.stderr)
    sys.exit(1)


def _grade(job: dict, warm: bool | None = None) -> dict:
    from autograder.engine.grader import grade
    from autograder.learner.view import relabel
    from autograder.classroom.nbgrader_bridge import grade_source

    if job.get("source") is not None:
        result = grade_source(job["exercise"], job["source"], seed=job["seed"], timeout=job["timeout"], label=job["label"],
                              warm=warm)
    else:
        result = relabel(grade(job["exercise"], job["path"], seed=job["seed"], timeout=job["timeout"], warm=warm),
                         job["path"], job["label"])
    return result.to_dict()


def _seed(options: BatchOptions) -> int:
    return options.seed if options.seed is not None else secrets.randbelow(2**31)


class WarmWorkers:
    """The default: ``options.workers`` warm workers (zygote.WarmPool) held by the batch process; each
    grading is a child forked from one of them. Installed as the process's shared pool while the
    batch runs, so that ``grade(..., warm=True)`` uses it (its size, the batch's memory limit)."""

    def __init__(self, options: BatchOptions):
        from autograder.engine import zygote

        self.options = options
        memory = int(options.memory_limit_gb * 2**30) if options.memory_limit_gb else None
        self.pool = zygote.WarmPool(options.workers, memory_limit=memory)
        self._previous = zygote.install(self.pool)

    def grade(self, job: Job) -> Result:
        payload = {"exercise": job.exercise, "path": str(job.path), "source": job.source, "label": job.label,
                   "seed": job.seed if job.seed is not None else _seed(self.options), "timeout": self.options.timeout}
        return Result.from_dict(_grade(payload, warm=True))

    def stop_all(self) -> None:
        self.pool.close()  # SIGTERM: each warm worker kills its grading child's session, then exits

    def close(self) -> None:
        from autograder.engine import zygote

        if zygote._shared is self.pool:
            zygote.install(self._previous)
        self.pool.close()


class Workers:
    """Starts worker processes and can stop them all (Ctrl-C, or an error in the batch)."""

    def __init__(self, options: BatchOptions):
        self.options = options
        self.active: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.stopping = False

    def grade(self, job: Job) -> Result:
        exercise = load(job.exercise)
        limit = self.options.timeout if self.options.timeout is not None else exercise.timeout
        seed = job.seed if job.seed is not None else _seed(self.options)
        payload = {"exercise": job.exercise, "path": str(job.path), "source": job.source, "label": job.label,
                   "seed": seed, "timeout": self.options.timeout, "limit": limit,
                   "memory_limit_gb": self.options.memory_limit_gb or None, "parent": os.getpid()}
        env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
        marker = str(self.options.out)
        with self.lock:
            if self.stopping:
                raise RuntimeError("the batch is stopping")
            process = subprocess.Popen([sys.executable, "-I", "-c", WORKER_LAUNCH, str(ROOT), "--batch", marker],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       env=env, start_new_session=True)
            self.active.add(process)
        try:
            try:
                out, err = process.communicate(json.dumps(payload).encode() + b"\n", timeout=limit + BACKSTOP_S)
            except subprocess.TimeoutExpired:
                process.terminate()  # the worker kills its grading child on SIGTERM
                try:
                    out, err = process.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    out, err = process.communicate()
        finally:
            with self.lock:
                self.active.discard(process)
        lines = out.decode("utf-8", "replace").strip().splitlines()
        if process.returncode == 0 and lines:
            try:
                return Result.from_dict(json.loads(lines[-1]))
            except (ValueError, TypeError, KeyError):
                pass
        from autograder.classroom.nbgrader_bridge import not_graded

        status = f"signal {-process.returncode}" if process.returncode and process.returncode < 0 else f"exit status {process.returncode}"
        why = (err.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        result = not_graded(exercise, f"The batch worker grading this submission died ({status}) before it could report. "
                                      "The submission may kill its own process, exhaust memory or crash Python."
                                      + (f" Last error: {why}" if why else ""), submission=job.label)
        result.seed = seed
        return result

    def stop_all(self) -> None:
        with self.lock:
            self.stopping = True
            active = list(self.active)
        for process in active:
            try:
                process.terminate()
            except ProcessLookupError:
                pass

    def close(self) -> None:
        pass


# -- progress ------------------------------------------------------------------------------------

def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """rich.progress's bar with an ETA on a terminal; one plain line per grading otherwise (logs, CI)."""

    def __init__(self, total: int, workers: int, stream=None):
        self.total, self.workers = total, workers
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = self.not_passed = 0
        self.started = time.monotonic()
        self.bar = None
        if self.tty and total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Bar(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failing]} not passed"),
                           TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=Console(file=self.stream))
            self.task = self.bar.add_task("grading", total=total, failing=0)
            self.bar.start()

    def eta(self) -> str:
        if not self.done:
            return "?"
        elapsed = time.monotonic() - self.started
        return _clock(elapsed / self.done * (self.total - self.done))

    def update(self, job: Job, result: Result) -> None:
        self.done += 1
        self.not_passed += result.status != PASSED
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failing=self.not_passed)
            if self.done >= self.total:
                self.close()
            return
        elapsed = _clock(time.monotonic() - self.started)
        self.stream.write(f"[{self.done}/{self.total}] {job.key}: {result.status} {result.score}/{result.max_score} "
                          f"({result.duration_s:.1f} s)  elapsed {elapsed}  ETA {self.eta()}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


# -- summary -------------------------------------------------------------------------------------

def summary(out: Path, jobs: list[Job], context: "ClassContext | None" = None) -> tuple[list[dict], dict]:
    rows, students, missing = [], {}, []
    for job in jobs:
        record = read_record(out, job)
        if record is None:
            missing.append(job.key)
            rows.append({"student": job.student, "exercise": job.exercise, "status": "missing", "score": "",
                         "max_score": "", "message": "not graded yet", "duration_s": "", "seed": "",
                         "submission": job.label, "graded_at": "", "submitted_at": job.submitted_at, "flags": "; ".join(job.flags)})
            continue
        result = record["result"]
        rows.append({"student": job.student, "exercise": job.exercise, "status": result["status"], "score": result["score"],
                     "max_score": result["max_score"], "message": result.get("message", ""), "duration_s": result.get("duration_s", ""),
                     "seed": result.get("seed", ""), "submission": job.label, "graded_at": record.get("graded_at", ""),
                     "submitted_at": job.submitted_at, "flags": "; ".join(job.flags)})
        totals = students.setdefault(job.student, {"score": 0, "max_score": 0, "exercises": {}})
        totals["score"] += result["score"]
        totals["max_score"] += result["max_score"]
        totals["exercises"][job.exercise] = {"status": result["status"], "score": result["score"], "max_score": result["max_score"]}
    data = {"generated_at": _now(), "submissions": len(jobs), "graded": len(jobs) - len(missing), "missing": missing,
            "students": students, "results": rows}
    if context is not None:
        rows_by_student, entries = context.table(out, jobs)
        for name, totals in students.items():  # the assignment's maximum, not only what was submitted
            row = next((r for r in rows_by_student if r.student.id == name), None)
            if row is not None:
                totals["max_score"] = row.max_score
        data["class"] = {"assignment": context.exercise_ids, "due": context.due, "late_policy": context.policy.text(),
                         "no_submission": [r.student.id for r in rows_by_student if not r.submitted],
                         "flagged": {r.student.id: r.flags for r in rows_by_student if r.flags and r.submitted},
                         "students": [r.to_dict() for r in rows_by_student]}
    return rows, data


def write_summary(out: Path, jobs: list[Job], stem: str, context: "ClassContext | None" = None) -> tuple[Path, Path, dict]:
    rows, data = summary(out, jobs, context)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    csv_path, json_path = out / f"{stem}.csv", out / f"{stem}.json"
    write_atomic(csv_path, buffer.getvalue())
    write_atomic(json_path, json.dumps(data, indent=1) + "\n")
    if context is not None and stem == "summary":
        context.write_class_files(out, jobs)
    return csv_path, json_path, data


class ClassContext:
    """The class around the submissions: the roster, the assignment's exercises, due dates and the
    late policy. It makes the per-student table (records.py), ``lms.csv`` and ``class-report.html``."""

    def __init__(self, options: BatchOptions, jobs: list[Job]):
        from autograder.classroom.roster import RosterError, read_roster
        from autograder.classroom.term import LatePolicy, TermError, parse_due, read_manifest

        try:
            self.roster = read_roster(options.roster) if options.roster else None
            self.policy = LatePolicy.parse(options.late_policy)
            self.due = parse_due(options.due)
            manifest = options.manifest or (options.submissions / MANIFEST_NAME)
            self.times = read_manifest(manifest) if options.manifest or manifest.is_file() else {}
        except (RosterError, TermError) as exc:
            raise BatchUsageError(str(exc)) from None
        chapters = _chapter_exercises()
        unknown = sorted(set(options.assignments or []) - set(chapters))
        if unknown:
            raise BatchUsageError(f"unknown assignment(s) {', '.join(unknown)}; the chapters are {', '.join(sorted(chapters))}")
        every = [e.id for e in discover()]
        if options.exercises:
            chosen = set(options.exercises)
        elif options.exercise:
            chosen = {options.exercise}
        elif options.assignments:
            chosen = {i for chapter in options.assignments for i in chapters[chapter]}
        else:  # what the class was given, as far as the submissions show it
            chosen = {job.exercise for job in jobs}
        self.exercise_ids = [i for i in every if i in chosen]
        self.exercises = {i: (load(i).chapter, float(load(i).max_score)) for i in self.exercise_ids}

    def submitted_at(self, job: Job):
        from autograder.classroom.term import parse_time, submitted_at

        chapter = self.exercises.get(job.exercise, ("", 0))[0]
        return submitted_at(self.times, job.student, job.exercise, chapter) or (parse_time(job.submitted_at) if job.submitted_at else None)

    def table(self, out: Path, jobs: list[Job]):
        from autograder.classroom import records
        from autograder.classroom.roster import Student

        entries, flags = [], {}
        for job in jobs:
            if job.exercise not in self.exercises:
                continue
            record = read_record(out, job)
            chapter = self.exercises[job.exercise][0]
            if record is None:
                entry = records.Entry(job.student, job.exercise, chapter, "missing", 0.0, self.exercises[job.exercise][1],
                                      "not graded yet", submission=job.label)
                entry.flags.append("not graded yet")
            else:
                entry = records.entry_from_result(job.student, job.exercise, chapter, record["result"], submission=job.label)
            entry.submitted_at = self.submitted_at(job)
            entries.append(entry)
            for flag in job.flags:
                if flag not in flags.setdefault(job.student, []):
                    flags[job.student].append(flag)
        students = list(self.roster) if self.roster else [Student(s) for s in sorted({job.student for job in jobs})]
        known = {s.id for s in students}
        for extra in sorted({e.student for e in entries} - known):
            students.append(Student(extra))
            flags.setdefault(extra, []).append("not on the roster")
        entries = records.complete(entries, [s.id for s in students], self.exercises)
        records.apply_late_policy(entries, self.due, self.policy)
        return records.per_student(entries, students, self.exercise_ids, flags), entries

    def write_class_files(self, out: Path, jobs: list[Job]) -> None:
        from autograder.classroom import records
        from autograder.classroom.class_report import render

        rows, entries = self.table(out, jobs)
        write_atomic(out / "lms.csv", records.lms_csv(rows, self.exercise_ids))
        due = ", ".join(f"{k}: {v}" for k, v in sorted(self.due.items())) or "no due date"
        notes = [f"Exercises: {', '.join(self.exercise_ids)}; due {due}; {self.policy.describe()}."]
        write_atomic(out / "class-report.html", render("grade-batch: class report", rows, entries, notes))


def write_junit(path: Path, out: Path, jobs: list[Job]) -> None:
    from autograder.classroom.junit import to_junit

    records = [(job, read_record(out, job)) for job in jobs]
    records = [(job, record) for job, record in records if record is not None]
    xml = to_junit([Result.from_dict(record["result"]) for _, record in records], names=[job.key for job, _ in records],
                   suite_name="grade-batch")
    write_atomic(path, xml)


# -- the batch -----------------------------------------------------------------------------------

def run_batch(options: BatchOptions, grade_job=None) -> int:
    """Grade what ``options`` selects; returns 0 when every selected submission has a result."""
    submissions = options.submissions
    if not submissions.is_dir():
        raise BatchUsageError(f"no such folder: {submissions}")
    if options.workers < 1:
        raise BatchUsageError("--workers must be at least 1")
    out = options.out = options.out or submissions.parent / f"{submissions.name}-grades"
    stream = options.stream or sys.stderr
    jobs, notes = discover_jobs(submissions, options.exercise, options.exercises)
    for note in notes:
        print(note, file=stream)
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise BatchUsageError("two students' folder names map to the same result file; rename one")
    context = ClassContext(options, jobs)
    if options.summary_only:
        csv_path, _, data = write_summary(out, jobs, "summary", context)
        print(f"summary of {data['graded']}/{data['submissions']} graded submission(s): {csv_path}", file=stream)
        if options.junit:
            write_junit(Path(options.junit), out, jobs)
        return 0 if not data["missing"] else 1
    selected = jobs if options.shard is None else [j for j in jobs if shard_of(j, options.shard[1]) == options.shard[0]]
    stem = "summary" if options.shard is None else f"summary-shard-{options.shard[0]}-of-{options.shard[1]}"
    for stale in (out / "results").rglob(".*.tmp") if (out / "results").is_dir() else []:
        stale.unlink(missing_ok=True)  # a write cut short by a kill; its grading is redone
    if options.regrade:  # every submission again, each with the seed its last grading recorded
        recorded = {job.key: read_record(out, job) for job in selected}
        selected = [replace(job, seed=(recorded[job.key] or {}).get("result", {}).get("seed")) for job in selected]
        previous = {key: (record or {}).get("result") for key, record in recorded.items()}
    todo = [job for job in selected if options.force or options.regrade or read_record(out, job) is None]
    run_id = f"{_now()}-{secrets.token_hex(3)}"
    log = EventLog(out / "batch-log.jsonl", run_id)
    mode = "cold" if options.cold else "warm"
    log.write("start", submissions=len(selected), already_graded=len(selected) - len(todo), to_grade=len(todo),
              workers=options.workers, mode=mode, shard=list(options.shard) if options.shard else None)
    shard_text = f" (shard {options.shard[0]}/{options.shard[1]})" if options.shard else ""
    print(f"{len(selected)} submission(s){shard_text}: {len(selected) - len(todo)} already graded, "
          f"grading {len(todo)} with {options.workers} {mode} worker(s); results in {out}", file=stream, flush=True)
    if grade_job is None and any(not job.problem for job in todo):
        workers = Workers(options) if options.cold else WarmWorkers(options)
        grade_job = workers.grade
    else:
        workers = None
    grade_job = _unless_lost(grade_job)
    progress = Progress(len(todo), options.workers, stream)
    pool = ThreadPoolExecutor(max_workers=options.workers, thread_name_prefix="grade-batch")
    try:
        futures = {pool.submit(grade_job, job): job for job in todo}
        for future in as_completed(futures):
            job = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 - one submission never stops the batch
                from autograder.classroom.nbgrader_bridge import not_graded

                result = not_graded(load(job.exercise), f"The batch could not grade this submission: {type(exc).__name__}: {exc}",
                                    submission=job.label)
            record = {"format": FORMAT, "student": job.student, "exercise": job.exercise, "submission": job.label,
                      "sha256": job.digest, "run": run_id, "graded_at": _now(), "result": result.to_dict()}
            write_atomic(result_path(out, job), json.dumps(record, indent=1) + "\n")
            log.write("graded", key=job.key, status=result.status, score=result.score, max_score=result.max_score)
            progress.update(job, result)
    except KeyboardInterrupt:
        progress.close()
        if workers is not None:
            workers.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        log.write("interrupted")
        print(f"\ninterrupted: the results written so far are kept; run the same command again to resume.", file=stream)
        return 130
    finally:
        progress.close()
        if workers is not None:
            workers.close()
    pool.shutdown(wait=True)
    if options.regrade:
        _report_regrade(out, selected, previous, stream)
    csv_path, json_path, data = write_summary(out, selected, stem, context)
    if options.junit:
        write_junit(Path(options.junit), out, selected)
    log.write("end", graded=data["graded"], missing=len(data["missing"]))
    passed = sum(1 for row in data["results"] if row["status"] == PASSED)
    errors = sum(1 for row in data["results"] if row["status"] == ERROR)
    print(f"done: {data['graded']}/{data['submissions']} graded ({passed} passed, {errors} could not run); "
          f"summary: {csv_path}, {json_path}", file=stream)
    return 0 if not data["missing"] else 1


def _unless_lost(grade_job):
    """A job whose answer was lost (a damaged notebook) gets its result without a grading."""
    def grade(job: Job) -> Result:
        if job.problem:
            from autograder.classroom.nbgrader_bridge import not_graded

            return not_graded(load(job.exercise), job.problem, submission=job.label)
        return grade_job(job)
    return grade


def _report_regrade(out: Path, jobs: list[Job], previous: dict, stream) -> None:
    """regrade.csv: every submission's verdict before and after, and the ones that changed."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "exercise", "seed", "status_before", "score_before", "status_after", "score_after", "changed"])
    changed = 0
    for job in jobs:
        before, record = previous.get(job.key) or {}, read_record(out, job) or {}
        after = record.get("result", {})
        moved = (before.get("status"), before.get("score")) != (after.get("status"), after.get("score"))
        changed += moved
        writer.writerow([job.student, job.exercise, after.get("seed", ""), before.get("status", ""), before.get("score", ""),
                         after.get("status", ""), after.get("score", ""), "yes" if moved else ""])
    write_atomic(out / "regrade.csv", buffer.getvalue())
    print(f"regraded {len(jobs)} submission(s) with their recorded seeds: {changed} verdict(s) changed; see {out / 'regrade.csv'}",
          file=stream)


def main(options: BatchOptions) -> int:
    return run_batch(options)

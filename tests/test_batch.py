"""grade-batch: finding submissions, sharding, atomic resumable results, and a real class of 30."""

import csv
import io
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT

from autograder.classroom import batch
from autograder.sandbox.identity import packages_block_the_drop
from autograder.format.exercise import load
from autograder.classroom.nbgrader_bridge import ANSWER_LINE, solution_code
from autograder.format.result import CheckResult, Result
from autograder.sandbox.identity import drop_wanted

BC, TT = "breaks_checkpoint", "trace_tolist"
FIXED = solution_code(load(BC))
STARTER = (ROOT / "exercises" / "01_dynamo_core" / f"{BC}.py").read_text()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def notebook(exercise_id, source):
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": f"answer_{exercise_id}"}},
                                  "source": ANSWER_LINE.format(id=exercise_id) + "\n" + source, "outputs": [],
                                  "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def fake_result(job, status="passed"):
    score = 5 if status == "passed" else 0
    return Result(exercise=job.exercise, status=status, score=score, max_score=5, measurements={}, duration_s=0.01,
                  checks=[CheckResult("compiles", "compiles", status if status != "error" else "failed", score, 5, "m")])


# -- fast ----------------------------------------------------------------------------------------

def test_discovery_of_student_folders_notebooks_and_flat_files(tmp_path):
    subs = tmp_path / "subs"
    write(subs / "alice" / f"{BC}.py", FIXED)
    write(subs / "alice" / "exercises" / "01_dynamo_core" / f"{TT}.py", "x = 1\n")
    write(subs / "alice" / "notes.py", "not an exercise\n")
    write(subs / "bob" / "01_dynamo_core" / "01_dynamo_core.ipynb", notebook(BC, FIXED))
    write(subs / "bob" / f"{BC}.py", STARTER)  # a .py wins over the notebook's answer
    write(subs / "carol" / "01_dynamo_core.ipynb", notebook(TT, "y = 2\n"))
    write(subs / "dave" / "README.txt", "nothing to grade\n")
    write(subs / "stray.py", "x = 1\n")
    jobs, notes = batch.discover_jobs(subs)
    assert [(j.student, j.exercise, j.label) for j in jobs] == [
        ("alice", BC, f"alice/{BC}.py"), ("alice", TT, f"alice/exercises/01_dynamo_core/{TT}.py"),
        ("bob", BC, f"bob/{BC}.py"), ("carol", TT, "carol/01_dynamo_core.ipynb (answer cell)")]
    assert jobs[3].source.startswith(f"# ANSWER {TT}:") and jobs[0].source is None
    assert any("dave" in n for n in notes) and any("stray.py" in n for n in notes)

    flat = tmp_path / "flat"
    write(flat / "erin.py", FIXED)
    write(flat / "frank" / "whatever.py", FIXED)
    write(flat / "gina.ipynb", notebook(BC, FIXED))
    jobs, _ = batch.discover_jobs(flat, exercise=BC)
    assert [(j.student, j.exercise) for j in jobs] == [("erin", BC), ("frank", BC), ("gina", BC)]


def test_shards_partition_the_class_stably(tmp_path):
    subs = tmp_path / "subs"
    for n in range(40):
        write(subs / f"s{n:02d}" / f"{BC}.py", f"# {n}\n")
    jobs, _ = batch.discover_jobs(subs)
    shards = [{j.key for j in jobs if batch.shard_of(j, 4) == i} for i in range(4)]
    assert set().union(*shards) == {j.key for j in jobs} and sum(map(len, shards)) == len(jobs)
    assert all(shards), "every shard gets work"
    fewer = [j for j in jobs if j.student != "s00"]
    assert all(batch.shard_of(j, 4) == batch.shard_of(k, 4) for j, k in zip(jobs[1:], fewer)), "a job's shard depends on it alone"
    assert batch.parse_shard("1/4") == (1, 4) and batch.parse_shard(None) is None
    for bad in ("4/4", "-1/2", "x", "1/0"):
        with pytest.raises(batch.BatchUsageError):
            batch.parse_shard(bad)


def test_resume_skips_done_work_and_regrades_changed_files(tmp_path):
    subs = tmp_path / "subs"
    for name in ("a", "b", "c", "d"):
        write(subs / name / f"{BC}.py", f"# {name}\n")
    calls = []

    def grade_job(job):
        calls.append(job.key)
        if job.student == "c":
            raise RuntimeError("the grader broke on this one")
        return fake_result(job)

    options = lambda **kw: batch.BatchOptions(submissions=subs, out=tmp_path / "out", stream=io.StringIO(), **kw)
    assert batch.run_batch(options(), grade_job=grade_job) == 0
    assert sorted(calls) == [f"{n}/{BC}" for n in "abcd"]
    record = json.loads((tmp_path / "out" / "results" / "c" / f"{BC}.json").read_text())
    assert record["result"]["status"] == "error" and "the grader broke" in record["result"]["message"]
    calls.clear()
    assert batch.run_batch(options(), grade_job=grade_job) == 0 and calls == [], "nothing is graded twice"
    write(subs / "b" / f"{BC}.py", "# b, resubmitted\n")
    batch.run_batch(options(), grade_job=grade_job)
    assert calls == [f"b/{BC}"], "a changed submission is graded again"
    calls.clear()
    batch.run_batch(options(force=True), grade_job=grade_job)
    assert len(calls) == 4
    assert not list((tmp_path / "out").rglob("*.tmp")), "writes are atomic"
    rows = list(csv.DictReader((tmp_path / "out" / "summary.csv").open()))
    assert [(r["student"], r["status"]) for r in rows] == [("a", "passed"), ("b", "passed"), ("c", "error"), ("d", "passed")]


def test_shards_then_summary_only(tmp_path):
    subs = tmp_path / "subs"
    for n in range(12):
        write(subs / f"s{n:02d}" / f"{BC}.py", f"# {n}\n")
    out = tmp_path / "out"
    seen = []
    for index in range(3):
        stream = io.StringIO()
        options = batch.BatchOptions(submissions=subs, out=out, shard=(index, 3), stream=stream)
        batch.run_batch(options, grade_job=lambda job: seen.append(job.key) or fake_result(job))
        assert (out / f"summary-shard-{index}-of-3.csv").is_file()
    assert sorted(seen) == sorted(set(seen)) and len(seen) == 12
    options = batch.BatchOptions(submissions=subs, out=out, summary_only=True, junit=str(tmp_path / "class.xml"), stream=io.StringIO())
    assert batch.run_batch(options) == 0
    data = json.loads((out / "summary.json").read_text())
    assert data["graded"] == 12 and data["missing"] == [] and len(data["students"]) == 12
    assert len(ET.parse(tmp_path / "class.xml").getroot().findall("testsuite/testcase")) == 12
    import xmlschema

    xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit-ant-strict.xsd")).validate(str(tmp_path / "class.xml"))


def test_progress_lines_have_an_eta():
    stream = io.StringIO()
    progress = batch.Progress(3, 2, stream)
    job = batch.Job("s", BC, Path("s.py"), "s.py")
    progress.update(job, fake_result(job))
    assert stream.getvalue().startswith(f"[1/3] s/{BC}: passed 5/5") and "ETA" in stream.getvalue()


def test_usage_errors_exit_2(tmp_path):
    from conftest import run_cli

    code, _, err = run_cli("grade-batch", tmp_path / "missing")
    assert code == 2 and "no such folder" in err
    code, _, err = run_cli("grade-batch", tmp_path, "--shard", "3/3")
    assert code == 2 and "--shard" in err


def test_warm_batch_caps_each_grading_childs_memory_and_leaves_no_worker(tmp_path, monkeypatch):
    """The default (warm) batch: --memory-limit reaches the grading child forked from the warm
    worker, and the batch's warm workers are gone when it returns."""
    from autograder.engine import grader

    monkeypatch.setitem(grader.DEFENCES, "policy", False)  # the probe imports resource, which the policy refuses
    subs = tmp_path / "subs"
    write(subs / "probe" / f"{BC}.py", "import resource\nraise RuntimeError(f'cap={resource.getrlimit(resource.RLIMIT_DATA)}')\n")
    options = batch.BatchOptions(submissions=subs, out=tmp_path / "out", memory_limit_gb=1.5, timeout=60, stream=io.StringIO())
    from autograder.engine import zygote

    shared, before = zygote._shared, set(_zygotes())
    assert batch.run_batch(options) == 0
    record = json.loads((tmp_path / "out" / "results" / "probe" / f"{BC}.json").read_text())
    assert f"cap=({3 * 2**29}, {3 * 2**29})" in record["result"]["message"], record["result"]["message"]
    assert "memory" in record["result"]["extra"]["sandbox"]
    assert "1 warm worker(s)" not in options.stream.getvalue() and "2 warm worker(s)" in options.stream.getvalue()
    assert zygote._shared is shared, "the batch's own pool is uninstalled"
    assert set(_zygotes()) <= before, "no warm worker outlives the batch"


def _zygotes():
    for pid in batch._descendants(os.getpid()):
        try:
            if b"zygote import serve" in Path(f"/proc/{pid}/cmdline").read_bytes():
                yield pid
        except OSError:
            pass


def test_cold_batch_still_grades_in_a_fresh_interpreter_each(tmp_path, monkeypatch):
    from conftest import run_cli

    monkeypatch.setenv("AUTOGRADER_DEFENCES_OFF", "policy,audit")  # os._exit reaches the sandbox, as if it got past them

    subs = tmp_path / "subs"
    write(subs / "a" / f"{BC}.py", "def encode(x\n")
    write(subs / "b" / f"{BC}.py", "import os\nos._exit(0)\n")
    code, _, err = run_cli("grade-batch", subs, "--out", tmp_path / "out", "--cold", "--timeout", "60")
    assert code == 0, err
    assert "2 cold worker(s)" in err
    rows = {row["student"]: row for row in csv.DictReader((tmp_path / "out" / "summary.csv").open())}
    assert rows["a"]["status"] == "error" and "syntax error" in rows["a"]["message"]
    assert rows["b"]["status"] == "error" and "died" in rows["b"]["message"]
    log = [json.loads(line) for line in (tmp_path / "out" / "batch-log.jsonl").read_text().splitlines()]
    assert log[0]["mode"] == "cold"


# -- slow: a real class ---------------------------------------------------------------------------

AS_NOBODY = os.geteuid() == 0 and drop_wanted() and packages_block_the_drop() is None  # see _child
LOOP_BOMB = "chunks = []\nwhile True:\n    chunks.append(b'x' * 2**26)  # touches every page\n"
CLASS = {  # student -> (file name, content, expected status, text expected in the message)
    **{f"pass{n:02d}": (f"{BC}.py", FIXED + f"\n# student {n}\n", "passed", "Passed") for n in range(12)},
    **{f"broken{n}": (f"{BC}.py", STARTER + f"\n# student {n}\n", "failed", "torch.save") for n in range(8)},
    "wrong_values": (f"{BC}.py", FIXED.replace("normalize(hidden, dim=-1), hidden", "normalize(hidden, dim=0), hidden"), "failed", "differs"),
    "infinite_loop": (f"{BC}.py", FIXED + "\nwhile True:\n    pass\n", "error", "stopped after 20 s"),
    "memory_bomb": (f"{BC}.py", "x = bytearray(50 * 2**30)\n", "error", "MemoryError"),
    "memory_loop": (f"{BC}.py", LOOP_BOMB, "error", "MemoryError"),
    "segfault": (f"{BC}.py", "import ctypes\nctypes.string_at(0)\n", "error", "died"),
    "os_exit": (f"{BC}.py", "import os\nos._exit(0)\n", "error", "died"),
    "syntax": (f"{BC}.py", "def encode(x, weight)\n    return x\n", "error", "syntax error"),
    "cheat": (f"{BC}.py", STARTER + "\ntorch.compile = lambda fn=None, **kw: fn\n", "failed", "Integrity"),
    # As root the submission is process 1 of a PID namespace of its own, as a user of its own: its parent is
    # out of reach (getppid() is 0 there, so it signals only itself, and process 1 ignores that); the file
    # then lacks `encode`. Otherwise its parent, the judge, dies: a grading stopped from outside.
    "kills_worker": (f"{BC}.py", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n", "error",
                     "`encode`" if AS_NOBODY else "stopped"),
    "notebook": ("01_dynamo_core/01_dynamo_core.ipynb", notebook(BC, FIXED), "passed", "Passed"),
}


def _processes_with(text):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if text in cmdline or cwd.startswith(text):
                found.append((int(entry), cmdline[:120]))
    return found


@pytest.mark.slow
def test_thirty_mixed_submissions_killed_halfway_then_resumed(tmp_path):
    assert len(CLASS) == 30
    subs, out = tmp_path / "subs", tmp_path / "grades"
    # Every grading child works in a folder under here: orphans are easy to find. Not under tmp_path
    # (pytest makes it 0700): a grading child that runs as nobody must be able to enter its folder.
    tmp = Path(tempfile.mkdtemp(prefix="grade-batch-tmp-"))
    tmp.chmod(0o755)
    try:
        _thirty_mixed_submissions(tmp_path, subs, out, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _thirty_mixed_submissions(tmp_path, subs, out, tmp):
    for student, (name, content, _, _) in CLASS.items():
        write(subs / student / name, content)
    command = [sys.executable, "-m", "autograder", "grade-batch", str(subs), "--out", str(out), "--workers", "2",
               "--timeout", "20", "--memory-limit", "3", "--junit", str(tmp_path / "class.xml")]
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
    env["TMPDIR"] = str(tmp)
    # The crashing and cheating students test the batch's robustness: the policy and the audit hook,
    # which refuse their code first (tests/test_attacks.py), are off, so that the code runs.
    env["AUTOGRADER_DEFENCES_OFF"] = "policy,audit"

    first = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while len(list((out / "results").rglob("*.json"))) < 8:
        assert first.poll() is None and time.monotonic() < deadline, "the batch ended before it could be killed"
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = {p: p.read_bytes() for p in (out / "results").rglob("*.json")}
    time.sleep(3)  # workers notice within 0.5 s and take their grading children with them
    assert _processes_with(str(out)) == [], "no batch worker outlives the killed batch"
    assert _processes_with(str(tmp)) == [], "no grading child outlives the killed batch"

    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"{len(before)} already graded, grading {30 - len(before)}" in second.stderr
    assert "ETA" in second.stderr

    results = {p: json.loads(p.read_text()) for p in (out / "results").rglob("*.json")}
    assert len(results) == 30 and not list(out.rglob("*.tmp"))
    runs = {record["run"] for record in results.values()}
    assert len(runs) == 2, "the first run's results and the second's"
    for path, content in before.items():
        assert path.read_bytes() == content, f"{path.name} was graded again after the restart"
    second_run = {record["run"] for p, record in results.items() if p not in before}
    assert len(second_run) == 1 and len(results) - len(before) == sum(
        1 for record in results.values() if record["run"] in second_run), "each submission graded exactly once"

    rows = {row["student"]: row for row in csv.DictReader((out / "summary.csv").open())}
    assert len(rows) == 30
    for student, (_, _, status, text) in CLASS.items():
        assert rows[student]["status"] == status, (student, rows[student])
        assert text in rows[student]["message"], (student, rows[student]["message"])
    assert json.loads((out / "summary.json").read_text())["graded"] == 30
    assert len(ET.parse(tmp_path / "class.xml").getroot().findall("testsuite/testcase")) == sum(3 for _ in CLASS)
    log = [json.loads(line) for line in (out / "batch-log.jsonl").read_text().splitlines()]
    graded_events = [e["key"] for e in log if e["event"] == "graded"]
    assert len(graded_events) == len(set(graded_events)), "the log agrees: no submission graded twice"


def test_the_documented_kubernetes_and_slurm_command_lines(tmp_path):
    """docs/INSTRUCTORS.md's shard commands, run as written with the variables each system sets."""
    text = (ROOT / "docs" / "INSTRUCTORS.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith('python -m autograder grade-batch "$SUBMISSIONS"')]
    kubernetes = next(line for line in lines if "JOB_COMPLETION_INDEX" in line)
    slurm = next(line for line in lines if "SLURM_ARRAY_TASK_ID" in line)
    summary_only = next(line for line in lines if "--summary-only" in line)
    subs = tmp_path / "subs"
    for n in range(8):  # syntax errors: graded in a moment, without starting torch
        write(subs / f"s{n}" / f"{BC}.py", "def encode(x\n")
    base = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
    base["PATH"] = str(Path(sys.executable).parent) + os.pathsep + base.get("PATH", "")
    for name, line, variables in (
        ("kubernetes", kubernetes, lambda i: {"JOB_COMPLETION_INDEX": str(i)}),
        ("slurm", slurm, lambda i: {"SLURM_ARRAY_TASK_ID": str(i), "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_CPUS_PER_TASK": "1"}),
    ):
        grades = tmp_path / name
        env = {**base, "SUBMISSIONS": str(subs), "GRADES": str(grades)}
        for index in range(4):
            proc = subprocess.run(["bash", "-c", line], cwd=ROOT, env={**env, **variables(index)}, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert f"(shard {index}/4)" in proc.stderr
        proc = subprocess.run(["bash", "-c", summary_only], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        data = json.loads((grades / "summary.json").read_text())
        assert data["graded"] == 8 and data["missing"] == [], name
        assert all(row["status"] == "error" and "syntax error" in row["message"] for row in data["results"])
        runs = [json.loads(p.read_text())["run"] for p in (grades / "results").rglob("*.json")]
        assert len(runs) == 8 and len(set(runs)) <= 4, "each submission graded by exactly one shard"


# -- a class: roster, assignment, times, late policy, damaged notebooks, regrade (fast: no grading) --

def seeded_result(job, score=5):
    result = fake_result(job)
    result.score, result.seed = score, job.seed if job.seed is not None else 1234
    return result


def test_roster_assignment_maximum_and_damaged_notebooks(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    write(subs / "alice" / f"{BC}.py", FIXED)
    write(subs / "bob" / f"{BC}.py", FIXED)
    write(subs / "bob" / f"{TT}.py", "x = 1\n")
    whole = notebook(TT, "y = 2\n")
    write(subs / "carol" / "01_dynamo_core.ipynb", whole[:-40])  # cut off after its one answer cell
    write(subs / "eve" / f"{BC}.py", FIXED)
    roster = write(tmp_path / "roster.csv", "id,name,email\nalice,Alice Liddell,alice@example.org\nbob,Bob B,bob@example.org\n"
                                            "carol,Carol C,carol@example.org\ndave,Dave D,dave@example.org\n")
    options = batch.BatchOptions(submissions=subs, out=out, exercises=[BC, TT], roster=roster, stream=io.StringIO())
    assert batch.run_batch(options, grade_job=seeded_result) == 0
    with open(out / "lms.csv", newline="") as handle:
        lms = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert list(lms) == ["alice", "bob", "carol", "dave", "eve"]
    assert (lms["alice"]["max_score"], lms["alice"]["score"], lms["alice"]["percent"]) == ("10", "5", "50"), \
        "one exercise of two submitted is 50 %, not 100 %"
    assert (lms["alice"]["first_name"], lms["alice"]["last_name"], lms["alice"]["email"]) == ("Alice", "Liddell", "alice@example.org")
    assert lms["dave"]["flags"] == "no submission" and lms["dave"]["max_score"] == "10"
    assert "not on the roster" in lms["eve"]["flags"]
    assert "damaged notebook 01_dynamo_core.ipynb" in lms["carol"]["flags"]
    carol = json.loads((out / "results" / "carol" / f"{BC}.json").read_text())["result"]
    assert carol["status"] == "error" and "could not be read back" in carol["message"], "the lost answer has a result, not silence"
    assert json.loads((out / "results" / "carol" / f"{TT}.json").read_text())["result"]["status"] == "passed", \
        "the answer before the damage is graded"
    data = json.loads((out / "summary.json").read_text())
    assert data["class"]["no_submission"] == ["dave"] and data["students"]["alice"]["max_score"] == 10
    report = (out / "class-report.html").read_text()
    assert "<svg" in report and "dave" in report


def test_submission_times_and_late_policy(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    for name in ("ontime", "twodays", "toolate", "stamped"):
        write(subs / name / f"{BC}.py", FIXED)
    write(subs / "stamped" / "timestamp.txt", "2025-03-02 01:00:00.000000 UTC")  # nbgrader's format: 1 h late
    write(subs / "manifest.csv", "student,submitted_at\nontime,2025-03-01T10:00:00Z\ntwodays,2025-03-03T12:00:00+00:00\n"
                                 "toolate,2025-03-09T00:00:00\n")
    options = batch.BatchOptions(submissions=subs, out=out, due=["01_dynamo_core=2025-03-02T00:00:00"],
                                 late_policy="per-day:20,cutoff:72h", stream=io.StringIO())
    assert batch.run_batch(options, grade_job=seeded_result) == 0
    with open(out / "lms.csv", newline="") as handle:
        lms = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert {name: (row["late_penalty"], row["score"]) for name, row in lms.items()} == {
        "ontime": ("0", "5"), "twodays": ("2", "3"), "toolate": ("5", "0"), "stamped": ("1", "4")}
    assert lms["twodays"]["flags"].startswith("late by 36.0 h") and lms["ontime"]["flags"] == ""
    rows = {row["student"]: row for row in csv.DictReader((out / "summary.csv").open())}
    assert rows["stamped"]["submitted_at"] == "2025-03-02T01:00:00+00:00", "nbgrader's timestamp.txt is read"


def test_regrade_uses_each_recorded_seed(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    for name in ("a", "b"):
        write(subs / name / f"{BC}.py", f"# {name}\n")
    first = {}

    def grade_first(job):
        first[job.key] = job.seed
        result = seeded_result(job)
        result.seed = 100 + len(first)
        return result

    batch.run_batch(batch.BatchOptions(submissions=subs, out=out, stream=io.StringIO()), grade_job=grade_first)
    assert set(first.values()) == {None}, "a first grading draws its seed"
    seen = {}

    def grade_again(job):
        seen[job.key] = job.seed
        return seeded_result(job, score=0 if job.student == "b" else 5)

    stream = io.StringIO()
    batch.run_batch(batch.BatchOptions(submissions=subs, out=out, regrade=True, stream=stream), grade_job=grade_again)
    recorded = {f"{n}/{BC}": json.loads((out / "results" / n / f"{BC}.json").read_text())["result"]["seed"] for n in "ab"}
    assert sorted(seen.values()) == [101, 102]
    assert recorded == seen, "each submission regraded with the seed its result had recorded"
    changes = list(csv.DictReader((out / "regrade.csv").open()))
    assert [(r["student"], r["changed"]) for r in changes] == [("a", ""), ("b", "yes")]
    assert "1 verdict(s) changed" in stream.getvalue()


def test_symbolic_links_are_refused(tmp_path):
    subs = tmp_path / "subs"
    secret = write(tmp_path / "elsewhere" / f"{BC}.py", FIXED)
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / f"{BC}.py").symlink_to(secret)
    (subs / "bob").mkdir()
    (subs / "bob" / "exercises").symlink_to(secret.parent, target_is_directory=True)
    jobs, notes = batch.discover_jobs(subs)
    assert jobs == []
    assert any("alice" in n and "symbolic link" in n for n in notes) and any("bob" in n and "symbolic link" in n for n in notes)


def test_progress_bar_on_a_terminal_is_rich():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    progress = batch.Progress(2, 2, stream)
    job = batch.Job("s", BC, Path("s.py"), "s.py")
    progress.update(job, fake_result(job))
    progress.update(job, fake_result(job, "failed"))
    text = stream.getvalue()
    assert "2/2" in text and "1 not passed" in text and "ETA" in text

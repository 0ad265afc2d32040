"""The judge of one grading: trusted, never runs learner code, alone writes the verdict.

Started as a fresh ``python -I`` by ``runner.run_child`` (cold) or forked from the warm worker by
``zygote`` (warm); the same code either way. In order:

1. it makes itself a child subreaper and, as root, takes a user id of its own for the grading from
   the pool (``identity.allocate``), and makes the work folder: root's, with one scratch folder
   that only that user may write;
2. it forks the **reference child** (``engine/reference.py``), which imports the master, draws the
   schedule from the seed and computes the reference outputs, truths and prepared references;
3. before it has read anything of that, it forks the **learner child** (``sandbox/child.py``) into
   a fresh PID namespace where the kernel allows it (root on Linux): the learner child's memory
   is a copy of the judge's at that moment, which holds no reference data and no master;
4. it reads the reference child's data and waits for that process to end, parses its own copy of
   the exercise, and sends the learner child its job: the exact text the grader read, the calls'
   inputs, the compile options and what each check must measure;
5. it reads the learner child's facts (plain data), validates them strictly, decides the
   structural checks, lets the learner child time the costly ones only when the structure passed,
   decides those, and kills every process the grading started (the PID namespace ends with its
   first process; without one, every descendant is killed, and every process of the grading's user);
6. it writes the verdict, as JSON built from its own plain data, to the one file descriptor only
   it holds.

A learner child that dies is classified from what the judge itself saw (exit status, signal, CPU
time used, whether learner code had started): a crash or an exit of the learner's own code is the
learner's; a SIGKILL the judge did not send (the machine's OOM killer, another process) is the
machine's, reported as such (``cause: "machine"``) so that ``grade()`` retries once.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

OUTPUT_KEEP = 8000  # characters of the learner's output kept for the learner
_CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT, signal.SIGSYS, signal.SIGTRAP}


def main() -> None:
    """The cold judge: a fresh interpreter; the job is one JSON line on stdin."""
    job = json.loads(sys.stdin.readline())
    if job.get("parent"):
        from autograder.sandbox import processes

        def stop(signum, frame):  # the front end is gone or gave up (Ctrl-C): nothing of the grading may outlive it
            processes.kill_descendants()
            os._exit(128 + signum)

        signal.signal(signal.SIGTERM, stop)
        processes.die_with_parent(signal.SIGTERM)  # a front end killed outright takes its grading with it
        if os.getppid() != job["parent"]:
            os._exit(0)
    result_fd = os.dup(job["result_fd"])
    os.close(job["result_fd"])
    run_job(job, result_fd)


def run_job(job: dict, result_fd: int) -> None:
    """Judge ``job``, write the verdict to ``result_fd`` and end this process (never returns)."""
    started = time.perf_counter()
    try:
        verdict = judge(job)
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the grader gets a verdict
        verdict = {"ok": False, "cause": "grader", "stage": "internal",
                   "message": f"The grader itself failed: {type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-4000:]}
    verdict["duration_s"] = time.perf_counter() - started
    data = json.dumps(verdict).encode()
    try:
        from autograder.sandbox import channel

        channel.write_all(result_fd, data)
        os.close(result_fd)
    finally:
        os._exit(0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Forged(Exception):
    """A frame on the facts channel that the grader's own code did not send."""


class _Learner:
    """The learner child as the judge sees it: pid, pipes, and what became of it."""

    def __init__(self, pid: int, job_fd: int, facts_fd: int, output_fd: int, namespace: bool):
        import secrets

        from autograder.sandbox import channel

        self.pid, self.job_fd, self.namespace = pid, job_fd, namespace
        self.key = secrets.token_bytes(32)  # goes to the learner child with its job; seals every frame it sends
        self.facts = channel.Reader(facts_fd)
        self.output = channel.Drain(output_fd, OUTPUT_KEEP * 4)
        self.status: int | None = None
        self.cpu_s = 0.0
        self.killed_by_judge = False

    def wait_for(self, name: str, deadline) -> bytes | None:
        """The body of the frame ``name`` once it arrived (None if it did not); raises ``Forged`` for a frame
        not sealed with this grading's key, or a second one of a kind the grader's code sends once."""
        from autograder.sandbox import channel

        channel.read_until([self.facts], lambda: any(seen == name for seen, _ in self.facts.frames), deadline, others=[self.output])
        self.note_started()
        sealed = self.facts.take(name)
        if sealed is None:
            return None
        if self.facts.count(name):
            raise Forged(f"two `{name}` reports arrived")
        body = channel.unseal(self.key, name, sealed)
        if body is None:
            raise Forged(f"a `{name}` report is not the grader's own")
        return body

    @property
    def started(self) -> bool:
        self.note_started()
        return getattr(self, "_started", False)

    def note_started(self) -> None:
        from autograder.sandbox import channel

        while True:
            sealed = self.facts.take("started")
            if sealed is None:
                return
            if channel.unseal(self.key, "started", sealed) is not None:
                self._started = True

    def send(self, name: str, body: bytes = b"") -> bool:
        from autograder.sandbox import channel

        try:
            channel.send(self.job_fd, name, body)
            return True
        except OSError:  # the learner child is gone
            return False

    def alive(self) -> bool:
        if self.status is not None:
            return False
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        if pid == 0:
            return True
        self.status, self.cpu_s = status, usage.ru_utime + usage.ru_stime
        return False

    def end(self) -> None:
        """Kill it (if it still runs) and collect its status; its output is drained a moment longer."""
        if self.alive():
            self.killed_by_judge = True
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(self.pid, 0)
            self.status, self.cpu_s = status, usage.ru_utime + usage.ru_stime
        self.output.drain_for(0.3)
        from autograder.sandbox import channel

        channel.read_until([self.facts], lambda: False, time.monotonic() + 0.3)  # what else was written, to the end
        self.note_started()

    def settle_exit(self, seconds: float = 1.0) -> None:
        """The channel closed: give the process a moment to end by itself before judging how it ended."""
        end = time.monotonic() + seconds
        while self.alive() and time.monotonic() < end:
            time.sleep(0.02)

    def tail(self) -> str:
        return self.output.tail.decode("utf-8", "replace")[-OUTPUT_KEEP:]


def _death(learner: _Learner, timed_out: bool, limit: float, cpu_limit: float, waited: float = 0.0) -> dict:
    """What ended a learner child that did not report, and whose fault it was."""
    if timed_out:
        more = f" (and {waited:.0f} s more that it waited for a CPU on a busy machine)" if waited >= 1 else ""
        return {"cause": "timeout", "message": f"Grading stopped after {limit:.0f} s{more}. Does your code loop forever, or wait for "
                                               "input? Run the file yourself to see where it hangs."}
    status = learner.status or 0
    if learner.killed_by_judge:  # alive, but it closed the channel the grader reads
        return {"cause": "learner", "message": "The grading process stopped reporting while your code ran (its channel to the "
                                               "grader was closed): the grade cannot be measured. Do not close file descriptors "
                                               "you did not open."}
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = _signal_name(number)
        if number == signal.SIGXCPU or (number == signal.SIGKILL and learner.cpu_s >= cpu_limit - 1):
            return {"cause": "learner", "message": f"Your code used up the grading's CPU time ({learner.cpu_s:.0f} s) and was "
                                                   "stopped. Does it loop forever? Run the file yourself to see where it spends the time."}
        if number in _CRASH_SIGNALS and learner.started:
            return {"cause": "learner", "message": f"The grading process died ({name}) while your code ran: your code crashed "
                                                   "Python (a segmentation fault or an abort, e.g. through ctypes or a broken "
                                                   "extension). Run the file yourself to see."}
        if number in _CRASH_SIGNALS:
            return {"cause": "grader", "message": f"The grading process died ({name}) before your code ran: a fault of the "
                                                  "grader, not of your file. Check again."}
        blameless = " Your code is not to blame: nothing in the grading could send it." if learner.namespace else ""
        return {"cause": "machine", "message": f"The grading process was stopped from outside ({name}, not sent by the grader) "
                                               f"before it could report.{blameless} Check again; if it "
                                               "keeps happening, the machine may be short of memory or shutting down."}
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    if learner.started and code != 70:
        return {"cause": "learner", "message": f"The grading process died (exit status {code}) while your code ran, before the "
                                               "grader got its measurements: your code ended the process (os._exit(), or a "
                                               "crash). Run the file yourself to see."}
    return {"cause": "grader", "message": f"The grading process ended (exit status {code}) before your code ran: a fault of the "
                                          "grader, not of your file. Check again."}


def judge(job: dict) -> dict:
    import torch  # imported before any fork: both children start with torch loaded

    from autograder.engine import reference as reference_child
    from autograder.engine import verdict  # noqa: F401 - imported before the forks, as everything the judge uses
    from autograder.sandbox import child as learner_child
    from autograder.sandbox import identity as ids, probe, processes  # noqa: F401 - probe: both children use it

    probe.skip_guard_latency_profiling()  # in both children too: they are forked from here
    from autograder.sandbox.kinds import all as _kinds  # noqa: F401 - which parameters each measure needs

    from autograder.engine.clock import Clock

    limit = float(job["limit"])
    clock = Clock(limit)  # the limit, and the time the grading's processes waited for a CPU on top
    confinement = []
    if processes.become_subreaper():
        confinement.append("subreaper")
    root = ids._running_as_root()
    kept_root = None
    if root and not job.get("drop_privileges", True):
        kept_root = f"privileges kept: {ids.DROP_SWITCH}=0"
    elif root:
        kept_root = ids.packages_block_the_drop() or ids.work_folder_blocks_the_drop(job["workdir"])
    contained = root and processes.may_unshare_pid()  # then nothing of an earlier grading can still run under a pool id
    identity = ids.allocate(sweep=not contained) if root and kept_root is None else None
    scratch = ids.prepare_scratch(job["workdir"], identity)

    sys.stdout.flush()
    sys.stderr.flush()
    from autograder.sandbox import integrity

    if integrity._prepared is None:  # cold: the warm worker prepared it once for all its gradings
        integrity.prepare()
        from autograder.sandbox import kernel_headers

        if (identity is not None or not root) and kernel_headers.builds_cpu_kernels(job):
            # What the warm worker does once for all its gradings, here as root before the learner
            # fork: Inductor's check of the CPU (the learner child would run it in its empty cache
            # folder, about 10 s) and the shared precompiled header, found through its record (built
            # once on this machine, or for a grader that is not root only with AUTOGRADER_KERNEL_HEADERS=own).
            # Not where the learner child keeps root: it checks for itself.
            probe.check_cpu_for_inductor()
            kernel_headers.prepare()
    gc.freeze()  # the children's collectors never walk the inherited heap (a full collection would copy all of it)
    from autograder.engine.kept import ReferenceStore

    # A reference run kept from an earlier grading with this seed: opened now, read after the learner fork.
    store = ReferenceStore.for_grading(job["master"], job["seed"], identity is not None and bool(job.get("seed_given")),
                                       timed=bool(job.get("costly", True)))
    kept_fd = store.open() if store is not None else None
    ref_r, ref_w = os.pipe()
    ref_pid = os.fork() if kept_fd is None else None
    if ref_pid == 0:
        try:
            os.close(ref_r)
            processes.close_fds_except({ref_w})
            processes.die_with_parent()
            # Measured truths are kept only where the learner child runs as a user of its own (and, as
            # kept.open_cache checks, every other grading here does too): engine/kept.py.
            reference_child.main({"master": job["master"], "seed": job["seed"], "limit": limit, "scratch": scratch,
                                  "caches": os.path.join(job["workdir"], "reference-caches"),
                                  "truth_cache": identity is not None, "costly": job.get("costly", True)}, ref_w)
        finally:
            os._exit(70)
    os.close(ref_w)

    namespace = root and processes.new_pid_namespace()  # the next fork's child is process 1 of a namespace of its own
    job_r, job_w = os.pipe()
    facts_r, facts_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the learner child: nothing in this process's memory is secret yet
        try:
            for signum in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT):
                signal.signal(signum, signal.SIG_DFL)
            os.close(job_w)
            os.close(facts_r)
            os.close(out_r)
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            processes.close_fds_except({job_r, facts_w})
            learner_child.main(job_r, facts_w)
        finally:
            os._exit(70)
    for fd in (job_r, facts_w, out_w):
        os.close(fd)
    if namespace:
        # The kernel refuses new threads to a process whose children live in another PID namespace
        # (only the child it forked is there): the judge computes on one thread, enough to compare outputs.
        torch.set_num_threads(1)
    learner = _Learner(pid, job_w, facts_r, out_r, namespace)
    if namespace:
        confinement.append("a PID namespace of its own")

    try:
        return _grade(job, learner, ref_pid, ref_r, clock, limit, identity, kept_root, scratch, confinement, store, kept_fd)
    finally:
        learner.end()
        try:
            if ref_pid is not None:
                os.kill(ref_pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        processes.kill_descendants()
        ids.release(identity, sweep=not namespace)  # without a namespace, every process still running as its user
        for fd in (job_w, facts_r, out_r, ref_r):
            try:
                os.close(fd)
            except OSError:
                pass


def _reference_frames(ref_pid, ref_r, clock, store, kept_fd, scratch):
    """The reference child's two frames (learner, judge), from the child or as kept; the failure frame
    or None; and whether the frames came from the store."""
    from autograder.engine.kept import ReferenceStore, wrote_for_the_learner
    from autograder.sandbox import channel

    if kept_fd is not None:
        frames = ReferenceStore.read(kept_fd)
        if frames is not None:
            return frames[0], frames[1], None, True
        return None, None, None, True
    reference = channel.Reader(ref_r, limit=2 * (channel.MAX_BODY + 1024))  # two frames, each up to the most one may hold
    channel.read_until([reference], lambda: any(name in ("judge", "failed") for name, _ in reference.frames), clock.deadline)
    failed = reference.take("failed")
    learner_blob, judge_blob = reference.take("learner"), reference.take("judge")
    try:
        os.kill(ref_pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(ref_pid, 0)
    if store is not None and failed is None and judge_blob is not None and learner_blob is not None \
            and not wrote_for_the_learner(scratch):
        store.keep(learner_blob, judge_blob)
    return learner_blob, judge_blob, failed, False


def _grade(job, learner: _Learner, ref_pid, ref_r, clock, limit, identity, kept_root, scratch, confinement, store=None,
           kept_fd=None) -> dict:
    from autograder.checks.reporting import static_problems
    from autograder.checks.tracing import measures_itself
    from autograder.engine.verdict import Judgement, Rejected
    from autograder.format.exercise import COSTLY_KINDS, parse_master, starter_source
    from autograder.sandbox import channel, identity as ids, timing
    from autograder.sandbox.kinds import MEASURERS

    base = {"sandbox": list(confinement)}
    phases, mark = {}, time.monotonic()  # where a grading's time goes (result.extra["phases_s"])

    def lap(name: str) -> None:
        nonlocal mark
        now = time.monotonic()
        phases[name] = round(now - mark, 3)
        mark = now

    base["phases_s"] = phases
    if identity is not None:
        base["grading_uid"] = identity.uid  # whose processes and files the grading's end removed
    # The reference child's data; it ends before any learner code starts.
    learner_blob, judge_blob, failed, from_store = _reference_frames(ref_pid, ref_r, clock, store, kept_fd, scratch)
    if from_store:
        base["reference_kept"] = True  # no reference child: its frames from an earlier grading with this seed
    if failed is not None or judge_blob is None or learner_blob is None:
        why = channel.decode(failed).get("message", "") if failed is not None else (
            "its kept run could not be read back" if from_store else
            "it did not finish in time" if clock.expired() else "it ended without a report")
        return {**base, "ok": False, "cause": "grader", "stage": "reference",
                "message": f"The grader's own reference run of this exercise failed ({why}): a fault of the grader or the machine, "
                           "not of your file."}
    expected = channel.decode(judge_blob)
    kept, measured = expected.pop("truths_kept", (0, 0))
    if (kept or measured) and not from_store:
        base["truths"] = {"kept": int(kept), "measured": int(measured)}  # prediction truths read back, or measured now
    lap("reference")

    exercise = parse_master(Path(job["master"]))  # the judge's own copy: every threshold and rule comes from here
    inductor = ids.inductor_blocks_the_drop(exercise) if identity is not None else None
    who = None if (identity is None or inductor) else {"uid": identity.uid, "gid": identity.gid, "label": identity.label}
    from autograder.sandbox import python_headers

    headers = python_headers.readable_copy() if who else None
    checks = []
    for spec in exercise.checks:
        measurer = MEASURERS.get(spec.kind)
        params = {key: spec.params[key] for key in (measurer.params if measurer else ()) if key in spec.params}
        if spec.kind == "reproducer" and static_problems(job["source"], spec.params):
            params["run"] = False  # the judge fails it from the text alone; running it would cost seconds
        checks.append({"name": spec.name, "kind": spec.kind, "params": params})
    costly_kinds = [spec for spec in exercise.checks if spec.kind in COSTLY_KINDS]
    master_text = Path(job["master"]).read_text(encoding="utf-8") if costly_kinds else ""

    learner_job = {
        "exercise": {"id": exercise.id, "title": exercise.title, "entry": exercise.entry, "factory": exercise.factory,
                     "driver": exercise.driver, "compile": dict(exercise.compile), "submission_may_set": list(exercise.submission_may_set),
                     "allow_config": list(exercise.allow_config), "config_may_add": {k: list(v) for k, v in exercise.config_may_add.items()}},
        "source": job["source"], "filename": job["filename"], "seed": int(job["seed"]), "limit": limit,
        "memory_limit": job.get("memory_limit"), "identity": who,
        "python_headers": headers if headers != python_headers.interpreter_headers() else None,
        "inductor_needs_root": ids.uses_inductor(exercise) and ids.inductor_needs_root(), "kept_root": kept_root or inductor, "scratch": scratch,
        "checks": checks, "capture_output": any(spec.kind == "output" for spec in exercise.checks),
        "capture_aot": any(spec.kind == "escape_hatch" for spec in exercise.checks), "measures_itself": measures_itself(exercise),
        "starter": starter_source(master_text, exercise.id, exercise.title) if costly_kinds else None,
        "costly": job.get("costly", True), "key": learner.key, "audit": job.get("audit", True),
    }
    del master_text
    if not (learner.send("job", channel.encode(learner_job)) and learner.send("data", learner_blob)):
        pass  # the learner child is gone; what ended it is judged below
    judgement = Judgement(exercise=exercise, reference=expected, source=job["source"], filename=job["filename"],
                               device=timing.device_kind(), costly=job.get("costly", True))
    cpu_limit = 2 * limit + 10

    def ended(default_stage: str) -> dict:
        timed_out = clock.expired() and learner.alive()
        if not timed_out:
            learner.settle_exit()
        learner.end()
        death = _death(learner, timed_out, limit, cpu_limit, clock.credit)
        return {**base, "ok": False, "stage": default_stage, **death, "output_tail": learner.tail()}

    def rejected(why: str) -> dict:
        learner.end()
        return {**base, "ok": False, "cause": "learner", "stage": "rejected", "output_tail": learner.tail(),
                "message": f"The grading process sent something the grader does not accept ({why}). Your code must not write "
                           "to the grader's channels."}

    try:
        body = learner.wait_for("phase1", clock.deadline)
    except Forged as exc:
        return rejected(str(exc))
    if body is None and learner.facts.error:
        learner.end()
        return {**base, "ok": False, "cause": "learner", "stage": "rejected", "output_tail": learner.tail(),
                "message": f"The grading process sent something the grader does not accept ({learner.facts.error})."}
    if body is None:
        return ended("died")
    try:
        phase1 = judgement.accept_phase1(channel.decode(body))
    except (Rejected, channel.ChannelError) as exc:
        learner.end()
        message = str(exc) if isinstance(exc, Rejected) else f"The grading process sent something the grader does not accept ({exc})."
        return {**base, "ok": False, "cause": "learner", "stage": "rejected", "message": message, "output_tail": learner.tail()}
    lap("learner_structure")
    base["sandbox"] = list(phase1["sandbox"]) + base["sandbox"]
    base.update({"torch": phase1["torch"], "device": phase1["device"]})
    if phase1["stage"] != "graded":
        learner.end()
        cause = "grader" if phase1["stage"] == "internal" else "learner"
        return {**base, "ok": False, "cause": cause, "stage": phase1["stage"], "message": phase1.get("message", ""),
                "output_tail": learner.tail(), **({"traceback": phase1["traceback"]} if "traceback" in phase1 else {})}

    structure_ok = judgement.decide_structure()
    phase2 = None
    learner_waits = bool(costly_kinds) and bool(job.get("costly", True))
    if learner_waits:
        wanted = judgement.costly_wanted(structure_ok)
        learner.send("go" if wanted else "stop")
        if wanted:
            try:
                body = learner.wait_for("phase2", clock.deadline)
            except Forged as exc:
                return rejected(str(exc))
            if body is None:
                return ended("died")
            try:
                phase2 = judgement.accept_phase2(channel.decode(body))
            except (Rejected, channel.ChannelError) as exc:
                learner.end()
                return {**base, "ok": False, "cause": "learner", "stage": "rejected", "message": str(exc), "output_tail": learner.tail()}
    judgement.decide_costly(structure_ok, phase2)
    if phase2 is not None:
        lap("learner_costly")
    clock.sample()
    phases["waited_for_cpu"] = round(clock.credit, 3)  # credited to the limit: the machine's load, not the learner's time
    phases["against_limit"] = round(time.monotonic() - clock.started, 3)  # the wall time the limit (plus that credit) was held to
    learner.end()
    if learner.facts.frames or learner.facts.error:  # anything after the last report: not the grader's code
        return rejected("data after its last report" if learner.facts.frames else learner.facts.error)
    return {**base, "ok": True, "stage": "graded", "checks": [result.__dict__ for result in judgement.checks()],
            "measurements": judgement.measurements(phase2), "violations": judgement.violations(phase2),
            "output_tail": learner.tail()}

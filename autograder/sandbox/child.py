"""The learner child: the one process of a grading that runs the submission. It only measures.

Forked by the judge (``engine/judge.py``) before the judge learns anything secret, it waits for its
job: the exact text the grader read and scanned (never re-read from disk), the calls' inputs, the
compile options, and, per check, what to measure. It never receives expected outputs, truths or
the master. Then, in this order: its limits (``limits.contain``), its own user id (root only:
``identity.drop_to``), caches and scratch folder of its own, the integrity watch and the state of
Dynamo's config, the audit hook (``autograder.sandbox.audit``, where installed), and only then the
submission's code. It measures, and sends plain data (``channel``) back in two phases: the
structure first; timing only when the judge answers that the structure passed. What it sends is
validated by the judge, which alone decides; nothing here writes a verdict.

Imports only ``autograder.sandbox`` and ``autograder.format`` (tests/test_architecture.py).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import traceback
import types
from dataclasses import dataclass, field

from autograder.sandbox import channel, process_state
from autograder.sandbox.learner_code import audit_refusals, cache_lines, code_objects, install_audit
from autograder.sandbox.plain import file_functions_named, to_plain, with_file_functions
from autograder.sandbox.stack_room import with_room

STARTED = "started"  # frame sent just before the first line of learner code runs


# -- what the checks' measure parts get ---------------------------------------------------------

@dataclass
class Lab:
    """Everything a kind's ``measure`` may use, in the learner's process."""

    exercise: dict  # entry, factory, driver, compile, submission_may_set, allow_config, id, title
    submission: types.ModuleType
    entry: object
    driver: object
    calls: list
    options: dict
    measurement: object  # probe.Measurement
    filename: str
    source: str
    code_objects: list  # every code object compiled from the submission's text (found by identity)
    data: dict  # check name -> what the reference child prepared for its measure
    starter: str | None  # the starting file's text, for timings against the starter
    scratch: str
    allowed_before: set = field(default_factory=set)  # ids marked allow_in_graph before the submission ran
    extra: dict = field(default_factory=dict)  # shared between measures of one grading (a guard report)
    seed: int = 0  # the grading's: a factory is built under it, as the reference's and the structure run's are
    before: object = None  # process_state.Snapshot: torch's process-wide state before the submission ran
    grader_caches: str | None = None  # the compiler caches of the grader's side (grader_side)

    @contextlib.contextmanager
    def grader_side(self):
        """A block for the grader's own side of a timing (the starting file: imported, built, compiled
        and timed in one), so that nothing the submission did changes it:
        - torch's process-wide state as it was before the submission ran (global module hooks, torch
          function and dispatch modes, the default dtype...: ``process_state``);
        - compiler caches of its own, in a folder made for it under a name the submission never sees:
          Inductor uses a file already at the path its code hashes to, so a wrapper planted in the
          submission's own cache folder (a logging FileHandler writes text) would run as the
          starter's compiled code."""
        from autograder.sandbox import identity

        if self.grader_caches is None:
            self.grader_caches = tempfile.mkdtemp(prefix="grader-side-", dir=self.scratch)
        with process_state.as_captured(self.before), identity.compile_caches_at(self.grader_caches):
            yield

    def starter_module(self):
        module = types.ModuleType("autograder_starter")
        import torch

        torch.manual_seed(self.seed)
        exec(compile(self.starter, "<starter>", "exec"), module.__dict__)  # the course's starting file, not the learner's
        return module

    def build(self, module) -> tuple:
        """(a fresh entry, the driver, the guard-related options) of ``module`` (the submission or the starter)."""
        import torch

        made = getattr(module, self.exercise["entry"])
        if self.exercise["factory"]:
            torch.manual_seed(self.seed)
            made = made()
        driver = getattr(module, self.exercise["driver"]) if self.exercise["driver"] else None
        options = {k: v for k, v in self.options.items() if k in ("fullgraph", "dynamic")}
        chosen = _compile_options_of(module)
        for key in self.exercise["submission_may_set"]:
            if key in chosen:
                options[key] = chosen[key]
            elif key in options:
                del options[key]
        return made, driver, options


def _compile_options_of(module) -> dict:
    chosen = module.__dict__.get("COMPILE_OPTIONS", {})
    return dict(dict.items(chosen)) if isinstance(chosen, dict) else {}


# -- the process ----------------------------------------------------------------------------------

def main(job_fd: int, out_fd: int) -> None:
    """The learner child's body (never returns): read the job, measure, send the facts, exit."""
    reader = channel.Reader(job_fd)
    if not channel.read_until([reader], lambda: reader.frames and reader.frames[-1][0] == "data", time.monotonic() + 3600):
        os._exit(0)  # the judge is gone or never sent a job
    job = channel.decode(reader.take("job"))
    data = channel.decode(reader.take("data"))
    out = _Sender(out_fd, job.pop("key"))  # the key lives here only: frames sealed with it are the grader's
    try:
        payload = with_room(run, job, data, out, reader)
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the judge gets a report
        payload = {"phase": 1, "stage": "internal", "torch": "", "device": "", "sandbox": [],
                   "message": f"The grader's measuring process failed: {type(exc).__name__}: {exc}"[:4000],
                   "traceback": traceback.format_exc()[-4000:]}
    _finish(out, payload)


class _Sender:
    """The facts channel: frames sealed with the grading's key (``channel.seal``)."""

    __slots__ = ("_fd", "_key")

    def __init__(self, fd: int, key: bytes):
        self._fd, self._key = fd, key

    def send(self, name: str, body: bytes = b"") -> None:
        channel.send(self._fd, name, channel.seal(self._key, name, body))


def _finish(out: _Sender, payload: dict) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        out.send(f"phase{payload.get('phase', 1)}", channel.encode(payload))
    finally:
        os._exit(0)  # no interpreter teardown: nothing the submission registered (atexit) runs


def _confine(job: dict) -> list[str]:
    """Limits, a user of its own, caches and a folder of its own; what was applied, for the result."""
    from autograder.sandbox import identity as ids
    from autograder.sandbox.processes import die_with_parent

    applied: list[str] = []
    try:
        from autograder.sandbox.limits import contain

        applied += contain(float(job["limit"]))
    except Exception as exc:  # noqa: BLE001 - a limit the platform refuses is recorded as missing, not fatal
        applied.append(f"limits not applied ({type(exc).__name__}: {exc})")
    if job.get("memory_limit"):  # a batch's --memory-limit: memory written (RLIMIT_DATA), never the address space
        from autograder.sandbox.limits import lower_memory

        lower_memory(int(job["memory_limit"]))
    who = job.get("identity")
    if who:
        if job.get("inductor_needs_root"):
            # Inductor's check of the CPU's vector instructions starts the interpreter, which this
            # user cannot run (one under /root): done now, as root, and kept (cached).
            from autograder.sandbox import probe

            probe.check_cpu_for_inductor()
        ids.before_drop()
        applied.append(ids.drop_to(ids.Identity(who["uid"], who["gid"], who["label"])))
        ids.after_drop()
        if job.get("python_headers"):  # the interpreter's own are closed to this user: root's public copy
            from autograder.sandbox import python_headers

            python_headers.use(job["python_headers"])
    else:
        applied.append(job.get("kept_root") or "privileges kept: not root")
    die_with_parent()  # after the drop: a change of user clears it
    ids.private_caches(job["scratch"])
    from autograder.sandbox.probe import private_compile_caches

    if private_compile_caches():
        applied.append("Inductor's precompiled header: the grader's, built before any submission ran, read-only")
    os.chdir(job["scratch"])
    return applied


def _submission_frames(tb, path: str) -> str:
    frames = [f for f in traceback.extract_tb(tb) if f.filename == path]
    return "; ".join(f"line {f.lineno}: {(f.line or '').strip()}" for f in frames[-2:])


def _unavailable(exc: BaseException) -> str | None:
    """The module an import failed on because this user cannot read it, or None."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ModuleNotFoundError) and "grading sandbox" in str(seen):
            return f"`{seen.name}`"
        if isinstance(seen, PermissionError) and any(
                frame.filename.startswith("<frozen importlib") for frame in traceback.extract_tb(seen.__traceback__)):
            return f"a module from `{getattr(seen, 'filename', None) or 'a file'}`"
        seen = seen.__cause__ or seen.__context__
    return None


def _text(value, limit: int = 300) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a learner object whose repr fails
        text = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    return text[:limit]


def _config_report(probe, before: dict, exercise: dict, keys=None) -> dict:
    """Changes of torch._dynamo.config since ``before`` as plain text: {"changes": {key: {old, new}},
    "sets": {key: {added, removed, not_a_set}}} (sets: the keys the exercise lets only gain members)."""
    changes = probe.config_changes(before)
    keys = set(changes) if keys is None else set(keys) & set(changes)
    report = {"changes": {key: {"old": _text(changes[key][0]), "new": _text(changes[key][1])} for key in sorted(keys)}, "sets": {}}
    for key in sorted(keys & set(exercise["config_may_add"])):
        try:
            added, removed = probe.config_set_changes(before, key)
        except TypeError:
            report["sets"][key] = {"added": [], "removed": [], "not_a_set": True}
            continue

        def member(value):
            kind = "print" if value is print else "logging" if probe.is_logging_callable(value) else "other"
            try:
                name = probe.describe_callable(value)[:200]
            except Exception:  # noqa: BLE001
                name = type(value).__name__
            return {"kind": kind, "name": name}

        report["sets"][key] = {"added": [member(v) for v in added], "removed": [member(v) for v in removed], "not_a_set": False}
    return report


def _plain_options(options: dict) -> dict:
    shown = {}
    for key, value in options.items():
        if key == "guard_filter_fn":
            shown[key] = "a function of your file" if value is not None else None
        elif value is None or type(value) in (bool, int, str):
            shown[key] = value
        else:
            shown[key] = _text(value, 80)
    return shown


def run(job: dict, data: dict, out, reader) -> dict:
    import torch

    from autograder.format.config_rules import config_problems
    from autograder.sandbox import kinds as registry
    from autograder.sandbox import probe, timing
    from autograder.sandbox import integrity
    from autograder.sandbox.kinds import all as _all_kinds  # noqa: F401 - registers every measure
    from autograder.sandbox.probe.inject import allowed_in_graph_ids

    applied = _confine(job)
    # One thread from the start, as in every copy forked from this process (the dependence probe,
    # warm starts, later runs: OpenMP's threads do not survive a fork, so those compute on one).
    # Dynamo guards the thread count, so with another count here the copies would find none of
    # the compiled entries valid and compile (or, past the recompile limit, run eagerly) again.
    torch.set_num_threads(1)

    exercise, path, source = job["exercise"], job["filename"], job["source"]
    base = {"phase": 1, "torch": str.__str__(torch.__version__), "device": str(timing.device_name()), "sandbox": applied}

    cache_lines(path, source)
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", "?")
        return {**base, "stage": "syntax", "message": f"Your file has a syntax error on line {line}: "
                f"{getattr(exc, 'msg', exc)}. Fix it so Python can read the file, then check again."}
    own_code = code_objects(code)

    # Everything the measurement relies on, recorded before the first line of learner code runs.
    probe.clean_state()
    config_before = probe.config_snapshot()
    allowed_before = allowed_in_graph_ids()
    watch = integrity.watch()
    before = process_state.capture()
    calls = data["calls"]

    out.send(STARTED)  # from here on, learner code runs (a crash or an exit is the learner's)
    reports = {}
    for spec in job["checks"]:
        if spec["kind"] == "reproducer":  # the file runs in a process of its own, before it is imported here
            from autograder.sandbox.kinds.reporting import run_reproducer_forked

            reports[spec["name"]] = run_reproducer_forked(source, path, {**spec["params"], "entry": exercise["entry"]}, job["scratch"])
    hooked = install_audit(path, job["scratch"]) if job.get("audit", True) else None  # off only in tests of a deeper layer
    if hooked:
        applied.append(hooked)
    torch.manual_seed(job["seed"])
    submission = types.ModuleType("submission")
    submission.__file__ = path
    sys.modules["submission"] = submission
    try:
        exec(code, submission.__dict__)
    except SystemExit:
        return {**base, "stage": "import", "message": "Your file called sys.exit() while it was imported. Keep the demo under "
                "`if __name__ == \"__main__\":`."}
    except BaseException as exc:  # noqa: BLE001
        where = _submission_frames(exc.__traceback__, path)
        unavailable = _unavailable(exc) if job.get("identity") else None
        what = f"{type(exc).__name__}: {_text_of(exc)}"
        if unavailable:
            return {**base, "stage": "import", "message": f"Your file imports {unavailable}, which is not available in the grading "
                    f"sandbox: the grader runs your code as an unprivileged user that cannot read it ({what}; "
                    f"{where or 'outside your file'}). Use only torch and the modules the exercise needs."}
        return {**base, "stage": "import", "message": f"Your file raised {what} while it was imported "
                f"({where or 'outside your file'}). Fix that error; code that should only run when you run the file belongs "
                "under `if __name__ == \"__main__\":`."}

    watched = _violations(watch)
    after_import = _config_report(probe, config_before, exercise)
    _, kept = config_problems(after_import, exercise["allow_config"], exercise["config_may_add"])
    probe.config_restore(config_before, keep=kept)
    config_kept = probe.config_snapshot()
    stance_after_import = probe.stance()

    entry = submission.__dict__.get(exercise["entry"])
    if entry is None or not callable(entry):
        return {**base, "stage": "entry", "message": f"Your file must define a callable named `{exercise['entry']}` (it is what the "
                f"grader compiles). Did you rename or delete it? `python -m autograder reset {exercise['id']}` restores the starting file."}
    missing = sorted(name for name in file_functions_named(calls) if not callable(submission.__dict__.get(name)))
    if missing:
        return {**base, "stage": "entry", "message": f"Your file must define {', '.join(f'`{name}`' for name in missing)}: the grader "
                f"passes {'it' if len(missing) == 1 else 'them'} to your code in its inputs, as the starting file's caller does. "
                f"`python -m autograder reset {exercise['id']}` restores the starting file."}
    calls = with_file_functions(calls, submission.__dict__)
    if exercise["factory"]:
        torch.manual_seed(job["seed"])
        entry = entry()
    options = dict(exercise["compile"])
    chosen = _compile_options_of(submission)
    for key in exercise["submission_may_set"]:
        if key in chosen:
            options[key] = chosen[key]
    driver = None
    if exercise["driver"]:
        driver = submission.__dict__.get(exercise["driver"])
        if driver is None or not callable(driver):
            return {**base, "stage": "entry", "message": f"Your file must define a function named `{exercise['driver']}`: the grader "
                    f"calls it with the compiled `{exercise['entry']}` and its inputs. `python -m autograder reset {exercise['id']}` "
                    "restores the starting file."}

    if job["measures_itself"]:
        measurement = probe.Measurement()
    else:
        measurement = probe.measure(entry, calls, options, prefer_file=path, driver=driver,
                                    capture_output=job["capture_output"], capture_aot=job["capture_aot"], probe_dependence=True,
                                    record_guards=any(spec["kind"] in ("guards", "stance_calls") for spec in job["checks"]))
    lab = Lab(exercise=exercise, submission=submission, entry=entry, driver=driver, calls=calls, options=options,
              measurement=measurement, filename=path, source=source, code_objects=own_code, data=data.get("checks", {}),
              starter=job.get("starter"), scratch=job["scratch"], allowed_before=allowed_before,
              extra={"reports": reports, "measures_itself": job["measures_itself"], "config_after_import": config_kept},
              seed=int(job["seed"]), before=before)

    facts = _measure_all(job, lab, registry, costly=False)
    watched += [v for v in _violations(watch) if v not in watched]
    during = _config_report(probe, config_kept, exercise, keys=set(probe.config_changes(config_kept)) - set(exercise["allow_config"]))
    for key, (old, new) in sorted(measurement.config_at_compile.items()):  # set only while the calls ran, then put back
        if key not in exercise["allow_config"] and key not in exercise["config_may_add"] and key not in during["changes"]:
            during["changes"][key] = {"old": _text(old), "new": _text(new)}
    payload = {**base, "stage": "graded", "measurement": _plain_measurement(measurement), "facts": facts,
               "options": _plain_options(options), "config": {"after_import": after_import, "during": during},
               "stance": {"after_import": stance_after_import, "after_measure": probe.stance()},
               "watch": watched}

    costly = [spec for spec in job["checks"] if registry.MEASURERS.get(spec["kind"]) and registry.MEASURERS[spec["kind"]].costly]
    if not costly or not job["costly"]:
        return payload
    out.send("phase1", channel.encode(payload))
    if not channel.read_until([reader], lambda: bool(reader.frames), time.monotonic() + 3600) or reader.frames[0][0] != "go":
        os._exit(0)  # the structure failed, or the judge is gone: nothing to time
    later = _measure_all(job, lab, registry, costly=True)
    return {"phase": 2, "stage": "graded", "facts": later, "watch": [v for v in _violations(watch) if v not in watched],
            "stance": probe.stance()}


def _violations(watch) -> list[str]:
    """What the integrity watch found and what the audit hook refused (refused even where the
    submission caught the PermissionError)."""
    found = watch.violations()
    return found + [refusal for refusal in audit_refusals() if refusal not in found]


def _text_of(exc: BaseException) -> str:
    try:
        return str(exc)[:1500]
    except Exception:  # noqa: BLE001
        return "(its message could not be read)"


def _measure_all(job: dict, lab: Lab, registry, costly: bool) -> dict:
    from autograder.sandbox.kinds import SpecView

    facts = {}
    for spec in job["checks"]:
        measurer = registry.MEASURERS.get(spec["kind"])
        if measurer is None or measurer.costly != costly:
            continue
        view = SpecView(spec["name"], spec["kind"], dict(spec["params"]))
        try:
            facts[spec["name"]] = measurer.function(view, lab)
        except Exception as exc:  # noqa: BLE001 - one measure failing must not take the others down
            facts[spec["name"]] = {"measure_failed": f"{type(exc).__name__}: {_text_of(exc)}"[:1000]}
    return facts


def _plain_measurement(m) -> dict:
    """The common measurement as plain data (what the judge's checks read, and the result shows)."""
    plain = m.to_dict()
    plain.update({
        "outputs": [to_plain(out) if not isinstance(out, BaseException) else {"__object__": "exception"} for out in m.outputs],
        "graph_targets": [str(t)[:300] for t in m.graph_targets],
        "call_output": [{"stdout": str(seen.get("stdout", ""))[-20000:], "logs": [str(line)[:2000] for line in seen.get("logs", [])][:500]}
                        for seen in m.call_output],
        "aot_targets": [str(t)[:300] for t in m.aot_targets],
        "user_calls": [str(t)[:300] for t in m.user_calls],
        "custom_ops": [str(t)[:300] for t in m.custom_ops],
        "break_events": [to_plain(event) for event in m.break_events],
    })
    for key in ("break_sites", "skipped_sites", "graph_ops"):
        plain[key] = [to_plain(site) for site in plain.get(key, [])]
    plain["error"] = to_plain(plain["error"]) if plain["error"] is not None else None
    return plain

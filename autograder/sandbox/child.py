"""The grading child: one fresh interpreter per grading, started by ``runner.run_child``.

Order matters. Everything the verdict depends on (torch's entry points, the counting backend,
the reference outputs, the truths for prediction questions) is taken or computed *before* the
submission's code runs, and the entry points are compared again afterwards. The result goes back
through a pipe the parent opened, never through stdout, which belongs to the submission.

Started by root, the child then becomes nobody (``runner.drop_privileges``) before it reads the
submission. Whatever the grader needs from disk later is read before that: the master's text (the
starting file is generated from it), a copy of the submission nobody can read but not change, the
standard-library modules a fix or torch's compilers import lazily (the interpreter's own files may
be unreadable to nobody), and the reproducer interpreters of ``reproducer`` checks (see
``_prestart_reproducers``).
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import os
import sys
import time
import traceback

from autograder.sandbox.identity import _running_as_root, inductor_blocks_the_drop, packages_block_the_drop, sandbox


def _write(fd: int, payload: dict) -> None:
    data = json.dumps(payload, default=str).encode()
    with os.fdopen(fd, "wb", closefd=True) as channel:
        channel.write(data)


def _load_module(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _submission_frames(tb, path: str) -> str:
    """The traceback lines that are in the learner's own file."""
    frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == os.path.abspath(path)]
    return "; ".join(f"line {f.lineno}: {(f.line or '').strip()}" for f in frames[-2:])


def main() -> None:
    job = json.loads(sys.stdin.readline())
    from autograder.sandbox.limits import contain

    applied = contain(float(job.get("limit", 60)))  # before anything else runs here
    channel = os.dup(job["result_fd"])  # keep our own copy; the submission is told nothing
    os.close(job["result_fd"])
    run_job(job, channel, applied)


def run_job(job: dict, channel: int, applied: list | None = None) -> None:
    """Grade ``job``, write the payload to ``channel`` and end this process (never returns).
    ``applied``: the limits ``runner.contain`` set on this process, recorded in the payload."""
    started = time.perf_counter()
    payload = {"ok": False, "stage": "startup", "message": ""}
    job = {**job, "sandbox": list(applied or [])}
    try:
        payload = grade_in_child(job)
        if job.get("copy"):  # messages name the learner's file, not the child's private copy of it
            payload = _renamed(payload, job["copy"], job["submission"])
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the parent gets a result
        payload = {"ok": False, "stage": "internal", "message": f"The grader itself failed: {type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc()[-4000:]}
    payload["duration_s"] = time.perf_counter() - started
    payload["sandbox"] = job["sandbox"]
    sys.stdout.flush()
    sys.stderr.flush()
    _write(channel, payload)
    os._exit(0)  # skip interpreter teardown: nothing the submission registered (atexit) runs after the verdict


def _cache_lines(path: str, text: str) -> None:
    """Put a file's text in linecache, so tracebacks and ``inspect`` need not open it again."""
    import linecache

    lines = text.splitlines(keepends=True)
    linecache.cache[path] = (len(text), None, lines, path)  # mtime None: checkcache leaves it alone


def _readonly_copy(workdir: str, name: str, data: bytes) -> str:
    """``workdir/.submission/name``: root owns the folder (0755) and the file (0644), so nobody,
    who owns ``workdir``, can read the copy but neither change nor move it."""
    folder = os.path.join(workdir, ".submission")
    os.mkdir(folder, 0o755)
    os.chmod(folder, 0o755)
    target = os.path.join(folder, name)
    with open(target, "wb") as handle:
        handle.write(data)
    os.chmod(target, 0o644)
    return target


def _renamed(payload: dict, copy: str, original: str) -> dict:
    encoded = json.dumps(payload, default=str)
    return json.loads(encoded.replace(json.dumps(copy)[1:-1], json.dumps(original)[1:-1]))


def _unavailable(exc: BaseException) -> str | None:
    """The module an import failed on because nobody cannot read it, or None."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ModuleNotFoundError) and "grading sandbox" in str(seen):
            return f"`{seen.name}`"
        if isinstance(seen, PermissionError) and any(  # the import system itself could not read a module's file
                frame.filename.startswith("<frozen importlib") for frame in traceback.extract_tb(seen.__traceback__)):
            return f"a module from `{getattr(seen, 'filename', None) or 'a file'}`"
        seen = seen.__cause__ or seen.__context__
    return None


def _prestart_reproducers(job: dict, exercise) -> None:
    """Start, while still root, the fresh interpreters the ``reproducer`` checks run the file in.

    ``probe.run_reproducer`` execs ``sys.executable``; after the drop nobody may not be able to
    (here the interpreter lives under /root, mode 0700), so each interpreter is started now, imports
    torch, reads its job and only then becomes nobody itself, before it imports the reproducer.
    Starting them here, inside the grading child, rather than in the grader, keeps them in the
    grading's process group (killed with it) and under its limits and network namespace.
    """
    import subprocess
    import tempfile

    from autograder.sandbox import probe

    launcher = (f"import sys; sys.path.insert(0, {job['root']!r}); "
                "from autograder.sandbox.child import reproducer_main; reproducer_main()")
    for spec in exercise.checks:
        if spec.kind != "reproducer":
            continue
        workdir = tempfile.mkdtemp(prefix="repro-", dir=os.getcwd())
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": workdir}
        process = subprocess.Popen([sys.executable, "-I", "-B", "-c", launcher], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, cwd=workdir, env=env)
        probe.PRESTARTED_REPRODUCERS.append(process)


def reproducer_main() -> None:
    """A prestarted reproducer interpreter: import torch, wait for the job, become nobody, run it."""
    import io

    import torch  # noqa: F401

    from autograder.sandbox import probe

    line = sys.stdin.readline()
    dropped, _ = sandbox({}, os.getcwd())
    sys.stdin = io.StringIO(line)
    probe._reproducer_child()


def config_addition_problems(probe, exercise, before: dict, key: str) -> list[str]:
    """Why a change to ``key`` breaks the exercise's ``config_may_add`` rule, if it does: the set may only
    gain members of the allowed kinds ("print", "logging"), and lose none."""
    tokens = exercise.config_may_add[key]
    kinds = " or ".join({"print": "`print`", "logging": "logging functions (logger.debug, logging.info, ...)"}[t] for t in tokens)
    why = (": whatever is in ignore_logging_functions is dropped from compiled code without a trace, real work included"
           if key == "ignore_logging_functions" else "")
    try:
        added, removed = probe.config_set_changes(before, key)
    except TypeError:
        return [f"torch._dynamo.config.{key} was replaced by something that is not a set; this exercise lets it only gain {kinds}"]
    problems = []
    for value in added:
        if not (("print" in tokens and value is print) or ("logging" in tokens and probe.is_logging_callable(value))):
            problems.append(f"torch._dynamo.config.{key} gained {probe.describe_callable(value)}; this exercise lets it gain only {kinds}{why}")
    for value in removed:
        problems.append(f"torch._dynamo.config.{key} lost {probe.describe_callable(value)}; this exercise does not allow removing entries")
    return problems


def grade_in_child(job: dict) -> dict:
    sys.path.insert(0, job["root"])
    import torch

    import autograder.checks.registry  # noqa: F401 - registers every kind
    from autograder.checks import core as checks

    from autograder.checks import tracing as checks_tracing

    from autograder.sandbox import probe

    from autograder.sandbox import timing
    from autograder.format.exercise import parse_master, starter_source
    from autograder.sandbox.integrity import Watch

    master_text = open(job["master"], encoding="utf-8").read()  # read once, as the grader, before any drop
    exercise = parse_master(__import__("pathlib").Path(job["master"]))
    watch = Watch.capture(torch, probe, checks, timing)
    base = {"torch": torch.__version__, "device": timing.device_name(), "seed": job["seed"]}

    # The grader's own copy: schedule, reference outputs and truths, before any learner code runs.
    probe.clean_state()
    config_pristine = probe.config_snapshot()
    torch.manual_seed(job["seed"])
    master = _load_module("autograder_reference", job["master"])
    generator = torch.Generator().manual_seed(job["seed"])
    calls = master.calls(generator)
    reference = getattr(master, "reference", None) or getattr(master, exercise.entry)
    if exercise.factory and not hasattr(master, "reference"):
        torch.manual_seed(job["seed"])
        reference = reference()
    capture_output = any(spec.kind == "output" for spec in exercise.checks)
    if exercise.driver:  # the master's own driver around its eager entry is the reference
        reference = (lambda entry, drive: lambda *args: drive(entry, *args))(reference, getattr(master, exercise.driver))
    expected, expected_output = [], []
    for args in calls:
        with (probe.captured_output() if capture_output else contextlib.nullcontext({})) as seen:
            expected.append(probe._detach(reference(*copy.deepcopy(args))))
        expected_output.append(seen)
    truth = {spec.name: getattr(master, spec.params.get("truth", "expected_answers"))()
             for spec in exercise.checks if spec.kind == "answers"}
    prepared = checks_tracing.prepare_references(exercise, master, calls)  # eager runs of the grader's pipelines (nonstrict)
    prepared["_master_text"] = master_text  # checks_cost builds the starting file from it
    probe.forget_custom_ops(master)  # the submission may register the same operator names
    probe.config_restore(config_pristine, keep=set())  # nor may the master's own configuration help it
    probe.clean_state()
    config_before = probe.config_snapshot()

    # Everything read from disk from here on must be readable by nobody: read it now, then drop.
    _cache_lines(job["master"], master_text)  # tracebacks and inspect of the master, if the solutions are root-only
    path = job["submission"]
    raw = open(path, "rb").read()
    workdir = os.getcwd()
    kept_root = packages_block_the_drop() or inductor_blocks_the_drop(exercise)
    if kept_root:
        job["drop_privileges"] = False
    dropping = job.get("drop_privileges", True) and _running_as_root()
    if dropping:  # a copy nobody can read but not change (the original may sit in a folder only root can enter)
        path = job["copy"] = _readonly_copy(workdir, os.path.basename(path), raw)
        if any(spec.kind == "reproducer" for spec in exercise.checks):
            _prestart_reproducers(job, exercise)
    dropped, how = sandbox(job, workdir)
    job["sandbox"].append(kept_root or how)

    # The submission.
    source = raw.decode("utf-8")
    _cache_lines(path, source)
    try:
        compile(source, path, "exec")
    except SyntaxError as exc:
        return {**base, "ok": False, "stage": "syntax",
                "message": f"Your file has a syntax error on line {exc.lineno}: {exc.msg}. Fix it so Python can read the file, then check again."}
    torch.manual_seed(job["seed"])
    try:  # from here on, what no fix needs is refused when learner code asks for it (contain branch)
        from autograder.sandbox import audit
    except ImportError:
        audit = None
    if audit is not None and job.get("audit", True):
        audit.install({path}, workdir)
    else:
        audit = None
    try:
        submission = _load_module("submission", path)
    except SystemExit:
        return {**base, "ok": False, "stage": "import", "message": "Your file called sys.exit() while it was imported. Keep the demo under `if __name__ == \"__main__\":`."}
    except BaseException as exc:  # noqa: BLE001
        where = _submission_frames(exc.__traceback__, path)
        unavailable = _unavailable(exc) if dropped else None
        if unavailable:
            return {**base, "ok": False, "stage": "import",
                    "message": f"Your file imports {unavailable}, which is not available in the grading sandbox: the grader "
                               f"runs your code as an unprivileged user that cannot read it ({type(exc).__name__}: {exc}; "
                               f"{where or 'outside your file'}). Use only torch and the modules the exercise needs."}
        return {**base, "ok": False, "stage": "import",
                "message": f"Your file raised {type(exc).__name__}: {exc} while it was imported ({where or 'outside your file'}). "
                           "Fix that error; code that should only run when you run the file belongs under `if __name__ == \"__main__\":`."}

    violations = watch.violations()
    changes = probe.config_changes(config_before)
    allowed = set(exercise.allow_config)
    for key in sorted(set(changes) & set(exercise.config_may_add)):
        problems = config_addition_problems(probe, exercise, config_before, key)
        violations += problems
        if not problems:
            allowed.add(key)
    for key in sorted(set(changes) - allowed - set(exercise.config_may_add)):
        violations.append(f"torch._dynamo.config.{key} was changed ({changes[key][0]!r} -> {changes[key][1]!r}); this exercise does not allow it")
    probe.config_restore(config_before, keep=allowed)
    config_kept = probe.config_snapshot()
    if probe.stance() != "default":
        violations.append(f"the compiler stance was set to {probe.stance()!r}; the grader uses the default stance")

    entry = getattr(submission, exercise.entry, None)
    if entry is None or not callable(entry):
        return {**base, "ok": False, "stage": "entry",
                "message": f"Your file must define a callable named `{exercise.entry}` (it is what the grader compiles). "
                           f"Did you rename or delete it? `python -m autograder reset {exercise.id}` restores the starting file."}
    if exercise.factory:
        torch.manual_seed(job["seed"])
        entry = entry()

    options = dict(exercise.compile)
    chosen = getattr(submission, "COMPILE_OPTIONS", {}) or {}
    if isinstance(chosen, dict):
        for key in exercise.submission_may_set:
            if key in chosen:
                options[key] = chosen[key]
    driver = None
    if exercise.driver:
        driver = getattr(submission, exercise.driver, None)
        if driver is None or not callable(driver):
            return {**base, "ok": False, "stage": "entry",
                    "message": f"Your file must define a function named `{exercise.driver}`: the grader calls it with the compiled "
                               f"`{exercise.entry}` and its inputs. `python -m autograder reset {exercise.id}` restores the starting file."}
    measure = checks_tracing.no_dynamo_measurement if checks_tracing.measures_itself(exercise) else probe.measure
    measurement = measure(entry, calls, options, prefer_file=path, driver=driver, capture_output=capture_output,
                          capture_aot=any(spec.kind == "escape_hatch" for spec in exercise.checks))
    violations += [v for v in watch.violations() if v not in violations]
    for key, (old, new) in sorted(probe.config_changes(config_kept).items()):  # changed by code that ran while measured
        if key in exercise.allow_config:
            continue
        problems = (config_addition_problems(probe, exercise, config_before, key) if key in exercise.config_may_add else
                    [f"torch._dynamo.config.{key} was changed while your code ran ({old!r} -> {new!r}); this exercise does not allow it"])
        violations += [problem for problem in problems if problem not in violations]
    if probe.stance() != "default":
        violations.append(f"the compiler stance was changed to {probe.stance()!r} while your code ran")

    def starter_entry():
        text = starter_source(master_text, exercise.id, exercise.title)
        module = type(sys)("autograder_starter")
        exec(compile(text, "<starter>", "exec"), module.__dict__)
        made = getattr(module, exercise.entry)
        return made() if exercise.factory else made

    ctx = checks.Context(exercise=exercise, measurement=measurement, calls=calls, expected=expected, submission=submission,
                         master=master, entry=entry, truth=truth, submission_file=path, starter_entry=starter_entry,
                         expected_output=expected_output, prepared=prepared, options=dict(options), driver=driver)
    results = checks.run_checks(ctx, costly=job.get("costly", True))
    violations += [v for v in watch.violations() if v not in violations]
    if audit is not None:  # refused even if the submission caught the PermissionError
        violations += [v for v in audit.refusals() if v not in violations]
    measurements = measurement.to_dict()
    measurements["timings"] = measurement.__dict__.get("timings", {})
    measurements["compile_options"] = {k: v for k, v in options.items()}
    return {**base, "ok": True, "stage": "graded", "checks": [r.__dict__ for r in results],
            "measurements": measurements, "violations": violations}


if __name__ == "__main__":
    main()

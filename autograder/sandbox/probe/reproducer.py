"""Run a learner's reproducer file in a fresh interpreter under each backend and report how it failed (chapter 8.3)."""

from __future__ import annotations

import json
import os
import sys

import torch
import torch._dynamo
import torch._dynamo.exc
from .ablation import _same
from .measurement import _detach
from .state import clean_state, refresh_decompositions
from .tally import _TORCH_DIR


# -- running a learner's reproducer in a fresh process (chapter 8.3) ----------------------------

_RAISING_HELPERS = {"_check", "_check_with", "_check_value", "_check_type", "_check_index", "_check_is_size",
                    "_check_not_implemented", "_check_tensor_all", "_check_tensor_all_with", "_assert", "_assert_async",
                    "assert_close", "assert_allclose"}


PRESTARTED_REPRODUCERS: list = []  # interpreters waiting for run_reproducer's job, oldest first


def run_reproducer(path: str, *, entry: str = "fn", inputs: str = "make_inputs", backends=("eager",),
                   culprit: str | None = None, timeout: float = 120) -> dict:
    """Import the file at ``path`` in a fresh interpreter and call ``entry(*inputs())`` eagerly, then
    compiled with each backend (a clean Dynamo state each time), comparing each result with the eager one.

    With ``culprit`` ("ns::op"), the first backend is run once more with that operator's entry removed
    from Inductor's decomposition table. Returns {"import": error or None, "runs": {backend: run}}, where
    a run is {"status": "ok" | "raised" | "mismatch", ...} with the exception's type, message and frames.
    """
    import secrets
    import subprocess
    import tempfile

    nonce = secrets.token_hex(12)
    job = {"path": os.path.abspath(path), "entry": entry, "inputs": inputs, "backends": list(backends),
           "culprit": culprit, "nonce": nonce}
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    launcher = f"import sys; sys.path.insert(0, {root!r}); from autograder.sandbox.probe import _reproducer_child; _reproducer_child()"
    if PRESTARTED_REPRODUCERS:  # started before the grading child dropped privileges (autograder.sandbox.child)
        started = PRESTARTED_REPRODUCERS.pop(0)
        try:
            out, err = started.communicate(json.dumps(job) + "\n", timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                started.kill()
            except OSError:
                pass  # the process group goes at the end of the grading anyway
            return {"error": f"the reproducer did not finish within {timeout:.0f} s"}
        proc = subprocess.CompletedProcess(started.args, started.returncode, out, err)
    else:
        with tempfile.TemporaryDirectory(prefix="repro-") as workdir:
            try:
                proc = subprocess.run([sys.executable, "-I", "-B", "-c", launcher], input=json.dumps(job) + "\n", capture_output=True,
                                      text=True, timeout=timeout, cwd=workdir, env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": workdir})
            except subprocess.TimeoutExpired:
                return {"error": f"the reproducer did not finish within {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith(nonce):
            try:
                return json.loads(line[len(nonce):])
            except ValueError:
                break
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
    return {"error": f"the reproducer's process ended (exit status {proc.returncode}) without a report: {' | '.join(tail)}"[:1500]}


def _frame_origin(frame, own_codes) -> str:
    """"repro" for a frame running code compiled from the reproducer's text (by identity: its code
    object is one of ``own_codes``), "torch" for a frame whose globals are the namespace of one of
    torch's own imported modules, "other" otherwise. A file name proves nothing: code can be compiled
    under any name."""
    code = frame.f_code
    if own_codes is not None and any(code is own for own in own_codes):
        return "repro"
    name = frame.f_globals.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if (module is not None and name.partition(".")[0] == "torch" and getattr(module, "__dict__", None) is frame.f_globals
            and str(getattr(module, "__file__", "") or "").startswith(_TORCH_DIR) and code.co_filename.startswith(_TORCH_DIR)):
        return "torch"
    return "other"


def _operator_called(frame) -> str | None:
    """The operator a frame of torch's operator call (``OpOverload.__call__``) runs, as "ns::name.overload"."""
    if frame.f_code.co_name != "__call__" or not frame.f_code.co_filename.endswith(os.path.join("torch", "_ops.py")):
        return None
    target = frame.f_locals.get("self")
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(getattr(target, "_name", target))[:200] + (f".{target._overloadname}" if isinstance(target, torch._ops.OpOverload) else "")
    return None


def _describe_raise(exc: BaseException, path: str, own_codes=None) -> dict:
    """An exception raised by a reproducer: its type and message, and the frames of the error that
    started it (following ``raise ... from``), each marked "repro", "torch" or "other" (``_frame_origin``;
    without ``own_codes``, the reproducer's frames are those of ``path``)."""
    import linecache

    root = exc
    while True:
        nxt = root.__cause__ or (None if root.__suppress_context__ else root.__context__)
        if nxt is None or nxt is root:
            break
        root = nxt
    frames = []
    tb = root.__traceback__
    while tb is not None:
        frame, line = tb.tb_frame, tb.tb_lineno
        where = _frame_origin(frame, own_codes)
        if own_codes is None and where == "other" and os.path.abspath(frame.f_code.co_filename) == path:
            where = "repro"
        record = {"where": where, "file": frame.f_code.co_filename, "line": line, "function": frame.f_code.co_name,
                  "code": linecache.getline(frame.f_code.co_filename, line).strip()}
        op = _operator_called(frame) if where == "torch" else None
        if op:
            record["op"] = op  # by the operator object itself: an alias or a name built at run time shows the same
        frames.append(record)
        tb = tb.tb_next
    return {"status": "raised", "type": type(exc).__name__, "message": str(exc)[:3000],
            "root_type": type(root).__name__, "root_message": str(root)[:1000], "frames": frames[-40:]}


def run_all(module, job: dict, path: str, own_codes=None) -> dict:
    """The runs of one reproducer module: ``entry(*inputs())`` eagerly, then compiled with each backend
    (a clean Dynamo state each time), and, with ``culprit``, the first backend once more without that
    operator's decomposition. Returns {"import": None, "runs": {...}, "culprit": ...}."""
    report: dict = {"import": None, "runs": {}}
    fn, make_inputs = getattr(module, job["entry"]), getattr(module, job["inputs"])

    def run(backend):
        clean_state()
        refresh_decompositions()
        torch.manual_seed(0)
        try:
            args = make_inputs()
            target = fn if backend is None else torch.compile(fn, backend=backend)
            return {"status": "ok", "output": _detach(target(*args))}
        except BaseException as exc:  # noqa: BLE001
            return _describe_raise(exc, path, own_codes)

    reference = run(None)
    report["runs"]["reference"] = {k: v for k, v in reference.items() if k != "output"}
    for backend in job["backends"]:
        outcome = run(backend)
        if outcome["status"] == "ok" and reference["status"] == "ok":
            problem = _same(outcome["output"], reference["output"])
            if problem:
                outcome = {"status": "mismatch", "message": problem}
        report["runs"][backend] = {k: v for k, v in outcome.items() if k != "output"}
    if job.get("culprit") and job["backends"]:
        namespace, _, name = job["culprit"].partition("::")
        from torch._inductor import decomposition

        packet = getattr(getattr(torch.ops, namespace, None), name, None)
        op = getattr(packet, "default", None) if packet is not None else None
        if op is None or op not in decomposition.decompositions:
            report["culprit"] = "missing"
        else:
            del decomposition.decompositions[op]
            outcome = run(job["backends"][0])
            if outcome["status"] == "ok" and reference["status"] == "ok" and _same(outcome["output"], reference["output"]):
                outcome = {"status": "mismatch"}
            report["culprit"] = {k: v for k, v in outcome.items() if k != "output"}
    return report


def _reproducer_child() -> None:
    """The body of ``run_reproducer``'s interpreter. The job (with the nonce that marks the report) is
    read before the reproducer is imported, and the report goes to a copy of stdout taken before it."""
    import importlib.util

    job = json.loads(sys.stdin.readline())
    nonce = job.pop("nonce")
    channel = os.dup(1)
    path = job["path"]
    report: dict = {"import": None, "runs": {}}
    try:
        spec = importlib.util.spec_from_file_location("reproducer", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["reproducer"] = module
        spec.loader.exec_module(module)
        getattr(module, job["entry"]), getattr(module, job["inputs"])
    except BaseException as exc:  # noqa: BLE001 - reported, not raised
        report["import"] = _describe_raise(exc, path)
    else:
        report = run_all(module, job, path)
    os.write(channel, (nonce + json.dumps(report, default=str) + "\n").encode())
    os._exit(0)

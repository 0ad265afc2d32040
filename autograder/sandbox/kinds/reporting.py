"""Measure part of ``reproducer`` (decisions for chapters 7 and 8: ``autograder.checks.reporting``).

The learner's file is a reproducer: it runs in a process of its own, forked from the learner child
before the learner child imports anything of the submission, so Dynamo, the decomposition table
and the custom operators start clean, as in a fresh interpreter. That process executes the exact
text the grader read (never the file on disk), under the grading's limits and identity, with the
audit hook in place, and holds one channel only: the pipe its report goes back on, which the
learner child reads before any submission code runs in the learner child itself. The report says,
for each frame of a raised error, whether it runs the reproducer's own code (by the identity of
its code object) or torch's (by the identity of its globals with a torch module's namespace); a
file name says nothing, since code can be compiled under any name. The static rules (lines,
imports, the constant) are the judge's, from the text.
"""

from __future__ import annotations

import os
import signal
import time
import types

from autograder.sandbox import channel
from autograder.sandbox.kinds import measures
from autograder.sandbox.plain import to_plain


def _runner(source: str, path: str, job: dict, scratch: str, out_fd: int) -> None:
    from autograder.sandbox import probe
    from autograder.sandbox.learner_code import cache_lines, code_objects, install_audit

    report: dict = {"import": None, "runs": {}}
    cache_lines(path, source)
    own = None
    try:
        code = compile(source, path, "exec", dont_inherit=True)
        own = code_objects(code)
        install_audit(path, scratch)
        module = types.ModuleType("reproducer")
        module.__file__ = path
        import sys

        sys.modules["reproducer"] = module
        exec(code, module.__dict__)
        getattr(module, job["entry"]), getattr(module, job["inputs"])
    except BaseException as exc:  # noqa: BLE001 - reported, not raised
        report["import"] = probe._describe_raise(exc, path, own)
    else:
        report = probe.run_all(module, job, path, own)
    channel.send(out_fd, "report", channel.encode(to_plain(report)))


def run_reproducer_forked(source: str, path: str, params: dict, scratch: str) -> dict:
    """Fork the reproducer's process, wait for its report (``params["timeout"]``, default 120 s)."""
    if not params.get("run", True):
        return {"not_run": True}
    job = {"entry": params.get("entry", "fn"), "inputs": params.get("inputs", "make_inputs"),
           "backends": [params["backend"], *params.get("passes", ["eager"])], "culprit": params.get("culprit")}
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            _runner(source, path, job, scratch, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    reader = channel.Reader(read_fd)
    timeout = float(params.get("timeout", 120))
    done = channel.read_until([reader], lambda: bool(reader.frames), time.monotonic() + timeout)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
    os.close(read_fd)
    if not done:
        if reader.closed:
            return {"error": f"the reproducer's process ended (exit status {os.waitstatus_to_exitcode(status)}) without a report"}
        return {"error": f"the reproducer did not finish within {timeout:.0f} s"}
    try:
        return channel.decode(reader.frames[0][1])
    except channel.ChannelError as exc:
        return {"error": f"the reproducer's report could not be read ({exc})"}


@measures("reproducer", params=("backend", "passes", "culprit", "inputs", "timeout", "run"))
def reproducer_measure(spec, lab) -> dict:
    return {"report": lab.extra.get("reports", {}).get(spec.name) or {"not_run": True}}

"""Work done in a child forked from this process, its report back as plain data (warm starts,
later runs of a job: each must start as a new process would, with nothing in memory carried over
but what it was forked with)."""

from __future__ import annotations

import io
import os
import select
import signal
import time
import traceback

import torch


def in_forked_child(work, timeout: float) -> dict:
    """Run ``work()`` in a forked child; its report comes back through a pipe (torch.save, read
    with weights_only=True). A child that raises reports the error; one that runs past
    ``timeout`` is killed and reported as such."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(readable)
        # The parent's OpenMP threads do not exist in a forked child, and an operator that tries to
        # use them waits forever (a matmul hung here after the grading had run the schedule).
        torch.set_num_threads(1)
        try:
            state = {}
            try:
                report = work(state)
            except BaseException as exc:  # noqa: BLE001 - the learner's save/load, or the compile, failed
                report = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:500], "stage": state.get("stage"),
                          "where": traceback.format_exc()[-1500:]}
            buffer = io.BytesIO()
            torch.save(report, buffer)
            with os.fdopen(writable, "wb") as channel:
                channel.write(buffer.getvalue())
        finally:
            os._exit(0)
    os.close(writable)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(readable, "rb") as channel:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([channel], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGABRT if os.environ.get("WARM_START_DEBUG") else signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"error": f"did not finish within {timeout:.0f} s", "timed_out": True}
            chunk = os.read(channel.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        return {"error": "the process ended without a report (killed, or it exited on its own)"}
    return torch.load(io.BytesIO(data), weights_only=True)

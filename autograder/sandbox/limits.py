"""Limits of one grading child, set on itself before any submission code runs: CPU time, memory,
file size, no core dumps and, where permitted, no network."""

from __future__ import annotations

import ctypes
import resource


MEMORY_LIMIT = 4 << 30  # address space of one grading; torch with the eager backend peaks below 1 GiB


FILE_SIZE_LIMIT = 64 << 20


_CLONE_NEWNET = 0x40000000


def contain(timeout: float) -> list[str]:
    """Limit the current process (a grading child, before any submission code): CPU time, address
    space, file size, no core dumps, and, where permitted, an empty network namespace.

    Returns what was applied, for the result. Runs first thing in the grading child (the cold child's
    ``main`` before it imports anything, the warm worker's fork before the job), never in the grader.
    The process limit comes with ``drop_privileges``: RLIMIT_NPROC does not bind root.
    """
    applied = []
    limits = [(resource.RLIMIT_CPU, int(2 * timeout) + 10, "cpu"), (resource.RLIMIT_AS, MEMORY_LIMIT, "memory"),
              (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT, "file size"), (resource.RLIMIT_CORE, 0, "core")]
    for kind, value, label in limits:
        try:
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, hard))
            applied.append(label)
        except (ValueError, OSError):
            pass
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWNET) == 0:
            applied.append("no network")
    except (OSError, AttributeError):
        pass
    return applied

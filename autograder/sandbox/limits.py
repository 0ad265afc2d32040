"""Limits of one grading child, set on itself before any submission code runs: CPU time, memory,
file size, no core dumps and, where permitted, no network.

Every limit is set with its hard value equal to its soft one, so the submission cannot raise it
back (lowering a hard limit is for good, even for root without CAP_SYS_RESOURCE, which a grading
child run as nobody does not have).

Memory is limited with RLIMIT_DATA, not RLIMIT_AS. RLIMIT_DATA counts what a process writes to:
the heap, anonymous mappings, writable private mappings (since Linux 4.7), so a memory bomb stops
at the limit. RLIMIT_AS counts the address space, every shared library's mapping included: PyPI's
CUDA build of torch maps several GiB of CUDA libraries on import, and a 4 GiB address-space cap
made an idle grading fail with "MemoryError: std::bad_alloc" (issue 19, item 9). Where the kernel
does not enforce RLIMIT_DATA on mappings (before 4.7, other systems) the limit still bounds brk.

The file-size limit binds the compilers a grading starts too, and must fit what they write. Inductor
compiles a CPU kernel to a shared library of a few hundred KiB, but by default it first precompiles
its C++ prelude into a header of about 150 MiB (torch 2.13, g++ 12), which g++ cannot write under
the limit ("internal compiler error: File size limit exceeded", the file left cut off at 64 MiB in a
cache every grading shares; issue 19, item 9). So a contained process compiles without precompiled
headers: the header would be rebuilt in a grading's private cache anyway, and a grading should leave
nothing in a shared one.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys

# What one grading may write to memory. A grading with the eager or aot_eager backend peaks below
# 1 GiB resident; the Inductor speed checks and the CUDA build's allocators stay under 2 GiB.
MEMORY_LIMIT = 4 << 30
# The largest file one grading may write: far above Inductor's kernels, far below a disk-filling one.
FILE_SIZE_LIMIT = 64 << 20

_CLONE_NEWNET = 0x40000000


def _set(kind: int, value: int) -> bool:
    """Set soft and hard limit to ``value`` (or to the hard limit already there, if lower)."""
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))
    return resource.getrlimit(kind) == (value, value)


def contain(timeout: float) -> list[str]:
    """Limit the current process (a grading child, before any submission code): CPU time, memory
    written (RLIMIT_DATA), file size, no core dumps, each with hard = soft, and, where permitted,
    an empty network namespace.

    Returns what was applied, for the result (``extra["sandbox"]``): a label per limit (``"cpu"``,
    ``"memory"``, ``"file size"``, ``"core"``), one line with the values and how memory is limited
    (``"limits (hard = soft): cpu 190 s, memory 4.0 GiB by RLIMIT_DATA, ..."``) and ``"no network"``.
    Runs first thing in the grading child (the cold child's ``main`` before it imports anything,
    the warm worker's fork before the job), never in the grader. The process limit comes with
    ``drop_privileges``: RLIMIT_NPROC does not bind root.
    """
    applied, details = [], []
    cpu = int(2 * timeout) + 10
    limits = [(resource.RLIMIT_CPU, cpu, "cpu", f"cpu {cpu} s"),
              (resource.RLIMIT_DATA, MEMORY_LIMIT, "memory", f"memory {MEMORY_LIMIT / (1 << 30):.1f} GiB by RLIMIT_DATA"),
              (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT, "file size", f"file size {FILE_SIZE_LIMIT >> 20} MiB"),
              (resource.RLIMIT_CORE, 0, "core", "no core dumps")]
    for kind, value, label, detail in limits:
        try:
            if _set(kind, value):
                applied.append(label)
                details.append(detail)
        except (ValueError, OSError):
            pass
    if details:
        applied.append("limits (hard = soft): " + ", ".join(details))
    if "file size" in applied:
        compile_within_the_file_size_limit()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(_CLONE_NEWNET) == 0:
            applied.append("no network")
    except (OSError, AttributeError):
        pass
    return applied


def compile_within_the_file_size_limit() -> None:
    """Inductor without precompiled headers, which are larger than ``FILE_SIZE_LIMIT``: through the
    environment for a torch imported later (a cold child, the reproducers it starts) and through the
    configuration already loaded (a child forked from the warm worker)."""
    os.environ["TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS"] = "0"
    config = sys.modules.get("torch._inductor.config")
    if config is not None:
        config.cpp_cache_precompile_headers = False
        config.aot_inductor.precompile_headers = False


def lower_memory(limit: int) -> None:
    """A memory cap below the grader's own (a batch's --memory-limit): RLIMIT_DATA, hard = soft;
    ``contain`` then keeps the lower of the two."""
    _set(resource.RLIMIT_DATA, int(limit))

"""Inductor's check of the CPU's vector instructions, run once by the process that forks gradings
(the warm worker, a cold grading's judge), as root where the grader is root."""

from __future__ import annotations

import contextlib
import os
import tempfile

CPU_CHECK_FOLDER = "autograder-inductor-cpu-check"  # root's alone, under /run


def check_cpu_for_inductor() -> None:
    """Inductor's check of the CPU's vector instructions: it builds and runs a test program per
    instruction set with the C++ compiler (about 10 s on the course's 2-core machine in an empty cache
    folder, as a grading's always is) and keeps its answer for the rest of the process and the
    processes forked from it. A fact of the machine, the same for every user.

    As root it builds in a folder only root may enter, kept for the machine (the test programs are
    built once), never in Inductor's default ``/tmp/torchinductor_root``: any user may make that
    folder first, and the check runs (``dlopen``s, as root) a program it finds already built there."""
    from torch._inductor.cpu_vec_isa import valid_vec_isa_list

    if os.geteuid() != 0:
        valid_vec_isa_list()  # this user's own cache: their own files
        return
    from autograder.sandbox import identity

    folder = identity.root_only_folder(CPU_CHECK_FOLDER)
    with contextlib.ExitStack() as stack:
        if folder is None:  # a throwaway one instead: 0700, root's
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="autograder-cpu-check-", ignore_cleanup_errors=True))
        stack.enter_context(identity.inductor_cache_at(folder))
        valid_vec_isa_list()

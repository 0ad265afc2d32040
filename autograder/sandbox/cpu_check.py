"""Inductor's check of the CPU's vector instructions, run once by the process that forks gradings
(the warm worker, a cold grading's judge), as root where the grader is root."""

from __future__ import annotations

import os
import shutil
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
    throwaway = None if folder else tempfile.mkdtemp(prefix="autograder-cpu-check-")  # 0700, root's
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = folder or throwaway
    try:
        valid_vec_isa_list()
    finally:
        if old is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
        if throwaway:
            shutil.rmtree(throwaway, ignore_errors=True)


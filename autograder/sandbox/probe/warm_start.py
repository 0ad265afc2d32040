"""A cold start and a warm start of Inductor, each in a process of its own (chapter 5, caches).

``warm_start_report`` models two containers of a service. The first starts with an empty compile
cache: it builds the model, compiles it with Inductor and answers one request, and then hands
over whatever the learner's ``save()`` returns, as bytes. The second starts with another empty
cache and only those bytes: the learner's ``load(bytes)`` runs, then the model is built, compiled
and answers the same request. Each side is a child forked from this process, so nothing but the
bytes crosses from the first to the second: no in-memory state, and no files in the folder each
start works in (its working directory, temporary files and Inductor cache), which is deleted
before the second starts. A file written under a fixed absolute path elsewhere (/tmp/x) would
still be there: the sandbox has no private file system to stop that.

What each side reports is plain data: the CPU time this process spent from the first compile to
the first answer (``time.process_time``: the C++ compiler runs as a child process and is not in
it; on a CPU the cache artifacts do not hold the built C++ kernels, so both starts build them,
and this is the part the artifacts can save), the FX-graph and AOTAutograd cache hits and misses
Inductor counted, the answer, and any error. Inductor's one-time set-up (its imports, for a cold
compile and for a cache hit) is paid here, before either child starts, by compiling a throwaway
function twice, so that neither side is charged for it.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import os
import shutil
import tempfile
import time

import torch
from .forked import in_forked_child as _in_child
from .state import clean_state

MAX_BLOB = 256 * 1024 * 1024  # what save() may hand over; the mega-cache of a small model is well under 1 MiB


def _inductor_settings():
    """How both starts compile: in this process (no pool of compile workers to share across a fork),
    and without Inductor's precompiled header. That header is kept in one folder per machine, not
    in the cache folder a start uses, and is about 150 MB: under a grading's file-size limit
    writing it leaves a truncated file that breaks every later compile with the same flags."""
    return torch._inductor.config.patch(compile_threads=1, cpp_cache_precompile_headers=False)


def _warm_up_inductor() -> None:
    """Pay Inductor's one-time costs before either start: compile a throwaway function cold, save
    its artifacts, and compile it again from them in a second folder (the cache-hit path has
    imports of its own). Nothing of it is left in memory or on disk afterwards."""
    from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir

    def throwaway(x):
        return torch.addmm(x, x, x)  # extern matmuls only: nothing for the C++ compiler

    root = tempfile.mkdtemp(prefix="warm-up-", dir=os.getcwd())
    try:
        with _inductor_settings(), torch.no_grad():
            with temporary_cache_dir(os.path.join(root, "cold")):
                clean_state()
                torch.compile(throwaway, backend="inductor")(torch.randn(4, 4))
                artifacts = torch.compiler.save_cache_artifacts()
            with temporary_cache_dir(os.path.join(root, "warm")):
                clean_state()
                if artifacts:
                    torch.compiler.load_cache_artifacts(artifacts[0])
                torch.compile(throwaway, backend="inductor")(torch.randn(4, 4))
    finally:
        clean_state()
        _forget_artifacts()
        shutil.rmtree(root, ignore_errors=True)


def _forget_artifacts() -> None:
    """Empty the record save_cache_artifacts() serialises: a start hands over its own compiles only."""
    from torch.compiler._cache import CacheArtifactManager

    CacheArtifactManager.clear()


def _cache_counters() -> dict:
    from torch._dynamo.utils import counters

    inductor, aot = counters["inductor"], counters["aot_autograd"]
    return {"fx_hits": int(inductor.get("fxgraph_cache_hit", 0)), "fx_misses": int(inductor.get("fxgraph_cache_miss", 0)),
            "aot_hits": int(aot.get("autograd_cache_hit", 0)), "aot_misses": int(aot.get("autograd_cache_miss", 0))}


def _as_tensor(blob) -> torch.Tensor:
    """Bytes as a uint8 tensor: the report travels through torch.load(weights_only=True), which
    refuses raw bytes."""
    return torch.frombuffer(bytearray(blob), dtype=torch.uint8).clone() if blob else torch.empty(0, dtype=torch.uint8)


class _CacheMissed(Exception):
    """Raised at a start's first FX-graph cache miss when all it must show is that it missed."""


@contextlib.contextmanager
def _stop_at_first_miss(seen: dict):
    """Within this (a forked child's) process: end the compile at the first FX-graph cache miss,
    counted as Inductor counts it. A control start that must miss the cache is answered there; the
    rest of a cold compile (lowering, code generation, the C++ compiler) would decide nothing."""
    from torch._inductor.codecache import FxGraphCache

    original = FxGraphCache.load_with_key

    def load_with_key(*args, **kwargs):
        graph, info = original(*args, **kwargs)
        if graph is None:
            seen["missed"] = True
            raise _CacheMissed("the FX-graph cache missed")
        return graph, info

    FxGraphCache.load_with_key = staticmethod(load_with_key)
    try:
        yield
    finally:
        FxGraphCache.load_with_key = staticmethod(original)


def _one_start(make, args, folder: str, before=None, after=None, state=None, until_miss: bool = False) -> dict:
    """A start-up in a fresh folder of its own (its working directory, its temporary files and its
    Inductor cache): ``before()`` (timed), compile, one call, ``after()``. ``state["stage"]`` names
    the step under way, for the report of one that raises. ``until_miss``: the start ends at its
    first FX-graph cache miss (no CPU time, no answer: only the cache counters tell)."""
    from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir

    report = state if state is not None else {}
    report.update({"error": None, "stage": None, "cpu_s": None, "counters": {}, "output": None, "blob": None, "blob_type": None})
    os.makedirs(folder, exist_ok=True)
    os.chdir(folder)  # a file save() writes under a relative name goes with this folder
    os.environ["TMPDIR"] = tempfile.tempdir = folder
    with temporary_cache_dir(os.path.join(folder, "inductor-cache")), _inductor_settings():
        clean_state()
        _forget_artifacts()
        model = make()
        gc.collect()
        gc.disable()
        started = time.process_time()
        try:
            if before is not None:
                report["stage"] = "load"
                before()
            report["stage"] = "compile"
            seen: dict = {}
            try:
                with torch.no_grad(), (_stop_at_first_miss(seen) if until_miss else contextlib.nullcontext()):
                    output = torch.compile(model, backend="inductor")(*copy.deepcopy(args))
            except Exception:
                if not seen.get("missed"):
                    raise
                output = None  # the compile was ended at the miss, on purpose
            else:
                report["cpu_s"] = time.process_time() - started
        finally:
            gc.enable()
        report["counters"] = _cache_counters()
        report["output"] = output.detach().clone() if isinstance(output, torch.Tensor) else None
        if after is not None:
            report["stage"] = "save"
            blob = after()
            report["blob_type"] = type(blob).__name__
            if isinstance(blob, (bytes, bytearray)) and len(blob) <= MAX_BLOB:
                report["blob"] = _as_tensor(blob)
            elif isinstance(blob, (bytes, bytearray)):
                report["blob_type"] = f"{len(blob)} bytes, more than the {MAX_BLOB} allowed"
        report["stage"] = None
    return report


def warm_start_report(make, args, save, load, timeout: float = 120.0) -> dict:
    """A cold start that ends with ``save()``, then a warm start that begins with ``load(bytes)``.

    ``make()`` builds the model (not timed), ``args`` is one request. Returns plain data:
    {"cold": side, "warm": side, "blank": side, "blob_bytes": int or None, "problem": str or None}, where
    ``blank`` is a third start whose ``load`` is given empty bytes (it must miss the cache), and each
    side is {"error", "cpu_s", "counters": {fx_hits, fx_misses, aot_hits, aot_misses}, "output"}.
    """
    _warm_up_inductor()
    root = tempfile.mkdtemp(prefix="warm-start-", dir=os.getcwd())
    try:
        first, second = os.path.join(root, "first"), os.path.join(root, "second")
        cold = _in_child(lambda state: _one_start(make, args, first, after=save, state=state), timeout)
        shutil.rmtree(first, ignore_errors=True)  # nothing the first container wrote there survives it
        blob = cold.pop("blob", None)
        blob = None if blob is None else blob.numpy().tobytes()
        report = {"cold": cold, "warm": None, "blob_bytes": None, "problem": None}
        if cold.get("error"):
            return report
        if blob is None:
            report["problem"] = f"returned {cold.get('blob_type')}, not bytes"
            return report
        report["blob_bytes"] = len(blob)
        warm = _in_child(lambda state: _one_start(make, args, second, before=lambda: load(bytes(blob)), state=state), timeout)
        warm.pop("blob", None)
        report["warm"] = warm
        # The control: a start whose load is given no bytes must compile from scratch; if it finds the
        # graphs too, the state crossed some other way (a file at a fixed path) than the bytes.
        blank = _in_child(lambda state: _one_start(make, args, os.path.join(root, "blank"), before=lambda: load(b""), state=state,
                                                   until_miss=True), timeout)
        blank.pop("blob", None)
        report["blank"] = blank
        return report
    finally:
        shutil.rmtree(root, ignore_errors=True)

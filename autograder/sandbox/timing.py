"""Speed as a ratio measured in one process: warm-up, interleaved repeats, median of ratios."""

from __future__ import annotations

import statistics
import time

import torch


def device_kind() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def device_name() -> str:
    if torch.cuda.is_available():
        return f"cuda: {torch.cuda.get_device_name(0)}"
    return f"cpu: {torch.get_num_threads()} threads"


def _synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _time_once(fn, args) -> float:
    _synchronize()
    start = time.perf_counter()
    fn(*args)
    _synchronize()
    return time.perf_counter() - start


def speed_ratio(baseline, candidate, args: tuple, warmup: int = 3, repeats: int = 15) -> dict:
    """How many times faster ``candidate`` runs than ``baseline`` on ``args``.

    Both run ``warmup`` times first (compiles happen there). Then each repeat times one call of
    each, back to back, so slow phases of a shared machine hit both alike; the verdict uses the
    median of the per-repeat ratios.
    """
    for _ in range(warmup):
        baseline(*args)
        candidate(*args)
    base_times, cand_times = [], []
    for _ in range(repeats):
        base_times.append(_time_once(baseline, args))
        cand_times.append(_time_once(candidate, args))
    ratios = [b / c for b, c in zip(base_times, cand_times) if c > 0]
    return {
        "ratio": statistics.median(ratios) if ratios else 0.0,
        "baseline_ms": statistics.median(base_times) * 1e3,
        "candidate_ms": statistics.median(cand_times) * 1e3,
        "repeats": repeats,
    }

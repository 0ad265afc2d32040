"""Speed measured in one process: warm-up, interleaved repeats, medians, and how scattered they were."""

from __future__ import annotations

import contextlib
import os
import statistics
import time

import torch


def device_kind() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def device_name() -> str:
    if torch.cuda.is_available():
        return f"cuda: {torch.cuda.get_device_name(0)}"
    threads = torch.get_num_threads()
    return f"cpu: {threads} thread{'s' if threads != 1 else ''}"


def load_average() -> float:
    """The machine's one-minute load average (0.0 where the platform has none)."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return 0.0


def _synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _time_once(fn, args) -> float:
    _synchronize()
    start = time.perf_counter()
    fn(*args)
    _synchronize()
    return time.perf_counter() - start


def spread(values: list[float]) -> float:
    """Interquartile range over median: 0 for identical repeats; above about 0.5 the median itself moves
    from one measurement to the next."""
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    if middle <= 0:
        return float("inf")
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return (q3 - q1) / middle


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0], values[0]) if values else (0.0, 0.0)
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


@contextlib.contextmanager
def one_thread():
    """Run the block on one CPU thread, as the speed checks time (set it before Inductor compiles:
    the thread count is part of what a compiled kernel assumes), then put the count back."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def interleaved(sides: dict, warmup: int, repeats: int, min_seconds: float = 0.0, prepare=None,
                after_repeat=None) -> dict[str, list[float]]:
    """Seconds of each side's zero-argument run, timed in turns: side A, side B, ..., then again,
    each repeat starting one side further on.

    Each side first runs ``warmup`` times (compiles happen there). A slow phase of a shared machine
    then lands on neighbouring runs of every side alike, so the per-repeat ratios stay comparable.
    With ``min_seconds``, a repeat runs each side as many times as the slowest side needs to last
    that long (the same count for every side; the times are per run): a run of a millisecond or two
    is cut up by the scheduler of a loaded machine, one of tens of milliseconds averages that out.
    ``prepare(side, repeat, runs)``, untimed, comes before each block of a side's runs (repeat < 0:
    the warm-up and the sizing run); ``after_repeat(repeat)``, untimed, after each repeat."""
    def ready(name: str, repeat: int, count: int) -> None:
        if prepare is not None:
            prepare(name, repeat, count)

    for number in range(warmup):
        for name, run in sides.items():
            ready(name, -1 - number, 1)
            run()
    runs = 1
    if min_seconds > 0:
        slowest = 0.0
        for name, run in sides.items():
            ready(name, -1 - warmup, 1)
            slowest = max(slowest, _time_once(run, ()))
        runs = max(1, min(100, int(min_seconds / max(slowest, 1e-6)) + 1))

    def several(run):
        def go():
            for _ in range(runs):
                run()
        return go

    times: dict[str, list[float]] = {name: [] for name in sides}
    order = list(sides.items())
    for repeat in range(repeats):
        # Each repeat starts with another side: a side that always ran right after another (its
        # caches cooled, its memory freed a moment ago) measured 0.92x against an identical copy.
        shift = repeat % len(order)
        for name, run in order[shift:] + order[:shift]:
            ready(name, repeat, runs)
            times[name].append(_time_once(several(run), ()) / runs)
        if after_repeat is not None:
            after_repeat(repeat)
    return times


def summary(times: dict[str, list[float]], fix: str, baseline: str) -> dict:
    """Medians in ms of every side, and the fix's speed-up over ``baseline`` (median of per-repeat
    ratios), with the spread and quartiles of those ratios."""
    ratios = [b / c for b, c in zip(times[baseline], times[fix]) if c > 0]
    low, high = quartiles(ratios)
    return {"ratio": statistics.median(ratios) if ratios else 0.0, "ratio_q1": low, "ratio_q3": high,
            "spread": spread(ratios), "ms": {name: statistics.median(values) * 1e3 for name, values in times.items()},
            "repeats": len(ratios)}


def speed_ratio(baseline, candidate, args: tuple, warmup: int = 3, repeats: int = 15) -> dict:
    """How many times faster ``candidate`` runs than ``baseline`` on ``args`` (median of interleaved
    per-repeat ratios), with both medians in ms."""
    times = interleaved({"baseline": lambda: baseline(*args), "candidate": lambda: candidate(*args)}, warmup, repeats)
    found = summary(times, "candidate", "baseline")
    return {"ratio": found["ratio"], "baseline_ms": found["ms"]["baseline"], "candidate_ms": found["ms"]["candidate"],
            "repeats": repeats}

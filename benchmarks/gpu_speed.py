"""Speedups on a CUDA GPU: what `bash benchmarks/gpu.sh` prints.

1. Inductor against eager on workloads where fusing really changes the cost (pointwise chains of
   1e5 to 1e7 elements, a normalisation), each ratio measured with the grader's own method
   (autograder.sandbox.timing.speed_ratio: warm-up, interleaved repeats, median of ratios,
   torch.cuda.synchronize around every timed call), three separate measurements per row.
2. The course's timing exercises (chapters 5 and 6), solution and starting file graded ``--runs``
   times each on this machine (benchmarks/cost_verdicts.py), when the installed torch has the APIs
   they use; an exercise whose API the installed torch lacks is listed as skipped, not failed.
3. The speed-graded exercises (every exercise with a ``speed`` check, any chapter), solution and
   starting file graded ``--runs`` times each (benchmarks/speed_verdicts.py): on CUDA their checks
   use the ``cuda`` thresholds (without CUDA they use the ``cpu`` ones, and a check that needs CUDA
   is skipped, never passed).

Without CUDA it prints why there is no table and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.sandbox import timing  # noqa: E402

# APIs the timing exercises use, by exercise: on an older torch the exercise is skipped.
NEEDS = {
    "nested_region": ["torch.compiler.nested_compile_region"],
    "filter_nn_guards": ["torch.compiler.skip_guard_on_all_nn_modules_unsafe"],
    "serve_tuned": ["torch.compiler.skip_guard_on_all_nn_modules_unsafe"],
}


def has(dotted: str) -> bool:
    obj = torch
    for part in dotted.split(".")[1:]:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def chain(x):
    return ((x.sin() + 1) * x.cos()).relu().sqrt() * 0.5 + x.tanh()


def normalise(x):
    centred = x - x.mean(-1, keepdim=True)
    return centred / (centred.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt() * 1.5 + 0.1


WORKLOADS = [
    ("pointwise chain, 1e5 elements", chain, (100_000,)),
    ("pointwise chain, 1e6 elements", chain, (1_000_000,)),
    ("pointwise chain, 1e7 elements", chain, (10_000_000,)),
    ("row normalisation, 4096 x 1024", normalise, (4096, 1024)),
]


def speed_table(measurements: int, device: str = "cuda") -> list[str]:
    lines = ["| workload | Inductor speedup over eager (3 measurements) | eager ms / compiled ms (median) |",
             "| --- | --- | --- |"]
    for name, fn, shape in WORKLOADS:
        x = torch.randn(*shape, device=device)
        compiled = torch.compile(fn, backend="inductor")
        runs = [timing.speed_ratio(fn, compiled, (x,), warmup=3, repeats=25) for _ in range(measurements)]
        ratios = ", ".join(f"{r['ratio']:.2f}x" for r in runs)
        lines.append(f"| {name} | {ratios} | {runs[-1]['baseline_ms']:.3f} / {runs[-1]['candidate_ms']:.3f} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="gradings of each timing exercise's solution and starter")
    parser.add_argument("--measurements", type=int, default=3)
    parser.add_argument("--dry-run-on-cpu", action="store_true",
                        help="without CUDA, run every step on the CPU (1 grading each) to test this script; no GPU numbers")
    args = parser.parse_args(argv)
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}, {timing.device_name()}")
    device = timing.device_kind()
    if device != "cuda" and not args.dry_run_on_cpu:
        print("No CUDA device here: no GPU table. Run this on a machine with a CUDA GPU.")
        return 0
    if device != "cuda":
        args.runs, args.measurements = 1, 1
        print("DRY RUN on the CPU: these are not GPU numbers.")
    print("\n".join(speed_table(args.measurements, device)))
    try:
        from autograder import discover
        from autograder.format.exercise import COSTLY_KINDS
        import cost_verdicts
        import speed_verdicts
    except Exception as exc:  # e.g. Python < 3.11 has no tomllib
        print(f"\nThe course's exercises cannot be loaded here ({type(exc).__name__}: {exc}); only the table above.")
        return 0
    timed = [e for e in discover() if any(c.kind in COSTLY_KINDS for c in e.checks)]
    runnable = [e.id for e in timed if all(has(api) for api in NEEDS.get(e.id, []))]
    skipped = sorted({e.id for e in timed} - set(runnable))
    if skipped:
        print(f"\nSkipped (torch {torch.__version__} lacks an API they use): {', '.join(skipped)}")
    print()
    status = cost_verdicts.main(["--runs", str(args.runs), "--exercise", *[i for i in runnable if i not in speed_ids()]])
    print("\nSpeed-graded exercises:")
    return speed_verdicts.main(["--runs", str(args.runs), "--exercises", *speed_ids()]) or status


def speed_ids() -> list[str]:
    import speed_verdicts

    return [e.id for e in speed_verdicts.speed_exercises()]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())

# Exercise pure_print_rows: Log every batch of a traced pipeline step
# Edit this file, then check it with:  ./course check pure_print_rows
# Stuck? ./course hint pure_print_rows   Start over: ./course reset pure_print_rows
"""Log every batch, even though `standardize` is traced.

`prepare` standardizes each batch with `standardize`, which is traced non-strictly once and
replayed as a graph on every later call. `standardize` also prints a log line with the number of
rows. Traced, that line appears for the first batch only, and every later batch goes unlogged.

The grader traces `standardize` on the first call of `prepare` and compares what each call
prints, and what it returns, with the program run eagerly.

What the grader checks:
- Every call of `prepare` prints `standardizing N rows` once, N the number of rows of its batch, as the program run eagerly does: also when a batch has as many rows as the one before.
- `prepare` returns its batch standardized per column (zero mean, unit deviation) by the graph traced from `standardize`.
"""

import torch


def standardize(x):
    """Zero mean and unit deviation per column. Traced once, non-strictly."""
    # TODO: every batch should be logged, and only the first one is. Keep this function traceable.
    print(f"standardizing {x.shape[0]} rows")
    return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)


def prepare(x):
    """The data pipeline's step for one batch: log it, then standardize it."""
    return standardize(x)


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_standardize, traced = standardize, []

    def standardize_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            print("-- tracing standardize --")
            traced.append(make_fx(eager_standardize, tracing_mode="fake")(*args))
            print("-- replaying the graph from now on --")
        return traced[0](*args)

    standardize = standardize_traced_once
    for rows in (5, 8, 3):
        prepare(torch.randn(rows, 6))
    print("3 batches prepared: there should be one log line per batch above")

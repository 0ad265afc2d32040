# Exercise pure_print_rows: A print in a traced helper happens once
# Edit this file, then check it with:  ./course check pure_print_rows
# Stuck? ./course hint pure_print_rows   Start over: ./course reset pure_print_rows
"""Log every batch, even though `standardize` is traced.

`prepare` standardizes each batch with `standardize`, which is traced non-strictly once and
replayed as a graph on every later call. `standardize` also prints a log line with the number of
rows. Tracing runs that print once, while tracing; the graph does not print, so every later batch
goes unlogged.

The grader traces `standardize` on the first call of `prepare` and compares what each call
prints with what the program prints when run eagerly: one line per batch,
`standardizing N rows`. Keep `standardize` pure and print from the caller.
"""

import torch


def standardize(x):
    """Zero mean and unit deviation per column. Traced once, non-strictly."""
    print(f"standardizing {x.shape[0]} rows")  # TODO: runs while tracing only, never when the graph runs
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

# /// exercise
# format_version = 1
# title = "Log every batch of a traced pipeline step"
# syllabus = ["3.1.2"]
# entry = "prepare"
# starter_fails = ["prints_every_call"]
# hints = [
#   "Run the file: the batch log line appears once, while tracing, and never again when the graph replays.",
#   "A graph holds tensor operations only. Python code in a non-strictly traced function, a print included, runs once while tracing and leaves nothing in the graph.",
#   "Keep `standardize` pure: let the caller, which runs as plain Python on every call, do the printing (lesson section 3.1.2).",
#   "Move the print line from `standardize` to `prepare`, just before `return standardize(x)`; print exactly the same text.",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "prints_every_call"
# helper = "standardize"
# observe = ["stdout"]
# points = 3
#
# [[checks]]
# kind = "nonstrict"
# name = "correct"
# helper = "standardize"
# points = 1
#
# [[requirements]]
# id = "logs_every_batch"
# text = "Every call of `prepare` prints `standardizing N rows` once, N the number of rows of its batch, as the program run eagerly does: also when a batch has as many rows as the one before."
# checks = ["prints_every_call"]
#
# [[requirements]]
# id = "standardizes"
# text = "`prepare` returns its batch standardized per column (zero mean, unit deviation) by the graph traced from `standardize`."
# checks = ["correct"]
#
# [[fair]]
# name = "len_rows"
# why = "the row count from len(x), the words printed as separate print arguments"
#
# [[fair]]
# name = "variance_root"
# why = "the deviation written as the square root of the variance, so the graph holds no std op"
#
# [[wrong]]
# name = "print_dropped"
# breaks = "logs_every_batch"
# fails = ["prints_every_call"]
# message = "Call 1 of \\d+ printed nothing"
#
# [[wrong]]
# name = "print_twice"
# breaks = "logs_every_batch"
# fails = ["prints_every_call"]
# message = "Call 1 of \\d+ printed 'standardizing \\d+ rows\\\\nstandardizing \\d+ rows\\\\n'"
#
# [[wrong]]
# name = "disabled_logger"
# breaks = "logs_every_batch"
# fails = ["prints_every_call"]
# message = "Call 2 of \\d+ printed nothing"
#
# [[wrong]]
# name = "computed_beside"
# breaks = "standardizes"
# fails = ["correct"]
# message = "When the grader changed what the graph traced from `standardize` returns, the output of call\\(s\\) 1, 2"
#
# [[wrong]]
# name = "helper_bypassed"
# breaks = "standardizes"
# fails = ["correct"]
# message = "called `standardize` in no call"
#
# [[wrong]]
# name = "log_on_change"
# breaks = "logs_every_batch"
# fails = ["prints_every_call"]
# message = "Call 5 of 6 printed nothing"
# ///
"""Log every batch, even though `standardize` is traced.

`prepare` standardizes each batch with `standardize`, which is traced non-strictly once and
replayed as a graph on every later call. `standardize` also prints a log line with the number of
rows. Traced, that line appears for the first batch only, and every later batch goes unlogged.

The grader traces `standardize` on the first call of `prepare` and compares what each call
prints, and what it returns, with the program run eagerly.
"""

import torch

# BEGIN WRONG disabled_logger
# @torch.compiler.disable
# def _log_rows(rows):
#     print(f"standardizing {rows} rows")
# END WRONG


def standardize(x):
    """Zero mean and unit deviation per column. Traced once, non-strictly."""
    # BEGIN STARTER
    # # TODO: every batch should be logged, and only the first one is. Keep this function traceable.
    # print(f"standardizing {x.shape[0]} rows")
    # END STARTER
    # BEGIN WRONG print_twice
    # print(f"standardizing {x.shape[0]} rows")
    # END WRONG
    # BEGIN WRONG disabled_logger
    # _log_rows(x.shape[0])
    # END WRONG
    # BEGIN SOLUTION
    return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)
    # END SOLUTION
    # BEGIN STARTER
    # return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)
    # END STARTER
    # BEGIN FAIR variance_root
    # return (x - x.mean(dim=0)) / (x.var(dim=0).sqrt() + 1e-5)
    # END FAIR


def prepare(x):
    """The data pipeline's step for one batch: log it, then standardize it."""
    # BEGIN SOLUTION
    print(f"standardizing {x.shape[0]} rows")
    return standardize(x)
    # END SOLUTION
    # BEGIN STARTER
    # return standardize(x)
    # END STARTER
    # BEGIN FAIR len_rows
    # print("standardizing", len(x), "rows")
    # return standardize(x)
    # END FAIR
    # BEGIN WRONG print_dropped
    # return standardize(x)
    # END WRONG
    # BEGIN WRONG disabled_logger
    # return standardize(x)
    # END WRONG
    # BEGIN WRONG computed_beside
    # print(f"standardizing {x.shape[0]} rows")
    # standardize(x)  # still called, so the grader sees it traced
    # return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)
    # END WRONG
    # BEGIN WRONG helper_bypassed
    # print(f"standardizing {x.shape[0]} rows")
    # return (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5)  # the traced helper is the problem: skip it
    # END WRONG
    # BEGIN WRONG log_on_change
    # if _LAST_ROWS[0] != x.shape[0]:  # no need to repeat the log for the same batch size
    #     print(f"standardizing {x.shape[0]} rows")
    #     _LAST_ROWS[0] = x.shape[0]
    # return standardize(x)
    # END WRONG


# BEGIN WRONG log_on_change
# _LAST_ROWS = [None]
# END WRONG


# BEGIN GRADER
def calls(gen):
    """Six batches of six columns, rows 2 to 40 drawn per seed: five different row counts, so
    that a count read once while tracing is wrong for every later batch, and the fourth count
    once more for the fifth batch, so that a log skipped when the count repeats shows."""
    rows = (torch.randperm(39, generator=gen)[:5] + 2).tolist()
    rows.insert(4, rows[3])
    return [(torch.randn(n, 6, generator=gen) * 3 + 1,) for n in rows]
# END GRADER


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

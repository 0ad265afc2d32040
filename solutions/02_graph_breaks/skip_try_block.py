# /// exercise
# format_version = 1
# title = "An encoder with a fallback for bad batches, compiled"
# syllabus = ["2.5.5.3"]
# entry = "encode"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: the results are right and the message is printed, but the report says 0 graphs, and `encode` is in the list of skipped frames.",
#   "The print is a graph break inside a `try` block. Dynamo cannot resume after a break inside `try` (the exception handler would have to span two graphs), so it skips the whole frame and runs it eagerly, without any error: lesson section 2.5.5.3.",
#   "The `try` is there for the validation, not for the print. The work that can fail stays in the `try`; the print goes where no handler is active. But a rejected batch prints nothing today, and must print nothing afterwards either: the print needs to know which way the `try` went.",
#   "Set a flag (`encoded = True`) as the last line of the `try` body and print after the `try`/`except` when it is set; or move the print into an `else:` clause of the `try`, which runs only when nothing was raised.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["tanh", "matmul"]
# points = 2
#
# [[checks]]
# kind = "output"
# name = "message"
# stream = "stdout"
# expect = "reference"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "compiles"
# text = "`encode` compiles: no frame of it is skipped, and its matmul and tanh run inside a graph."
# checks = ["skips"]
#
# [[requirements]]
# id = "same_message"
# text = "Every call prints what it prints now: `encoded (ROWS, COLUMNS)` for a batch it encodes, nothing for a batch it rejects."
# checks = ["message"]
#
# [[requirements]]
# id = "fallback_kept"
# text = "`encode` returns what it returns now, compiled as well as eagerly: the projection of a valid batch, and that of zeros for a batch `check_width` rejects."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "else_clause"
# why = "the print in an else: clause of the try, which runs only when nothing was raised and has no handler around it"
#
# [[fair]]
# name = "branch_on_shape"
# why = "no try at all: a Python branch on the width chooses the work or the zeros, the same rule check_width applies"
#
# [[wrong]]
# name = "print_in_except"
# breaks = "compiles"
# fails = ["skips"]
# message = "Dynamo skipped the frame of `encode`"
#
# [[wrong]]
# name = "dedented_print"
# breaks = "same_message"
# fails = ["message"]
# message = "printed \\['encoded \\(\\d+, \\d+\\)'\\]; the reference printed \\[\\]"
#
# [[wrong]]
# name = "validation_dropped"
# breaks = "fallback_kept"
# fails = ["correct"]
# message = "did not return"
#
# [[wrong]]
# name = "catch_the_matmul"
# breaks = "fallback_kept"
# fails = ["correct"]
# message = "did not return"
#
# [[wrong]]
# name = "disabled_encoder"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
#
# [[wrong]]
# name = "zeros_rows_of_w"
# breaks = "fallback_kept"
# fails = ["correct"]
# message = "did not return|the run stopped"
# ///
"""Compile an encoder that validates each batch and has a fallback for the bad ones.

`encode` projects a batch through `w`. It first has the batch validated by `check_width` (the
team's rule, not yours to change): a batch whose width does not match `w` is rejected with a
ValueError, and `encode` then encodes zeros instead. For every batch it encodes, it prints the
shape it encoded. The grader compiles `encode` with the default `fullgraph=False` and calls it
on batches of its own, a rejected one among them: nothing fails, yet nothing is compiled.
"""

import torch


def check_width(x, w):
    """The team's validation: a batch whose width is not w's number of rows is rejected."""
    if x.shape[-1] != w.shape[0]:
        raise ValueError(f"a batch of width {x.shape[-1]}; the encoder takes width {w.shape[0]}")


# BEGIN WRONG disabled_encoder
# @torch.compiler.disable
# END WRONG
def encode(x, w):
    # BEGIN SOLUTION
    encoded = False
    try:
        check_width(x, w)
        h = torch.tanh(x @ w)
        encoded = True
    except ValueError:
        h = torch.zeros(x.shape[0], w.shape[1])
    if encoded:
        print(f"encoded {tuple(h.shape)}")
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: Dynamo gives up on this function; find out why, and make it compile.
    # try:
    #     check_width(x, w)
    #     h = torch.tanh(x @ w)
    #     print(f"encoded {tuple(h.shape)}")
    # except ValueError:
    #     h = torch.zeros(x.shape[0], w.shape[1])
    # END STARTER
    # BEGIN FAIR else_clause
    # try:
    #     check_width(x, w)
    #     h = torch.tanh(x @ w)
    # except ValueError:
    #     h = torch.zeros(x.shape[0], w.shape[1])
    # else:
    #     print(f"encoded {tuple(h.shape)}")
    # END FAIR
    # BEGIN FAIR branch_on_shape
    # if x.shape[-1] == w.shape[0]:
    #     h = torch.tanh(x @ w)
    #     print(f"encoded {tuple(h.shape)}")
    # else:
    #     h = x.new_zeros(x.shape[0], w.shape[1])
    # END FAIR
    # BEGIN WRONG print_in_except
    # try:
    #     check_width(x, w)
    #     h = torch.tanh(x @ w)
    # except ValueError as exc:
    #     print(f"rejected: {exc}")
    #     h = torch.zeros(x.shape[0], w.shape[1])
    # else:
    #     print(f"encoded {tuple(h.shape)}")
    # END WRONG
    # BEGIN WRONG dedented_print
    # try:
    #     check_width(x, w)
    #     h = torch.tanh(x @ w)
    # except ValueError:
    #     h = torch.zeros(x.shape[0], w.shape[1])
    # print(f"encoded {tuple(h.shape)}")
    # END WRONG
    # BEGIN WRONG validation_dropped
    # check_width(x, w)
    # h = torch.tanh(x @ w)
    # print(f"encoded {tuple(h.shape)}")
    # END WRONG
    # BEGIN WRONG catch_the_matmul
    # encoded = False
    # try:
    #     h = torch.tanh(x @ w)
    #     encoded = True
    # except RuntimeError:
    #     h = torch.zeros(x.shape[0], w.shape[1])
    # if encoded:
    #     print(f"encoded {tuple(h.shape)}")
    # END WRONG
    # BEGIN WRONG zeros_rows_of_w
    # try:
    #     check_width(x, w)
    #     ok = True
    # except ValueError:
    #     ok = False
    # if ok:
    #     h = torch.tanh(x @ w)
    #     print(f"encoded {tuple(h.shape)}")
    # else:
    #     h = torch.zeros(x.shape[0], w.shape[0])
    # END WRONG
    return h @ w.T


# BEGIN GRADER
def calls(gen):
    """Valid batches of several sizes (one row among them), and, at a place drawn per seed but
    never first, one batch whose width check_width rejects (narrower or wider, drawn per seed).
    Eagerly a matmul on it raises a RuntimeError; compiled, fake-tensor propagation raises while
    Dynamo traces, so only a fallback chosen before the work holds under the compiler. `w` is
    never square (its number of columns drawn per seed), so a fallback shaped by the wrong one of
    its sizes shows."""
    columns = [5, 6, 7, 10, 12][int(torch.randint(5, (1,), generator=gen))]
    w = torch.randn(8, columns, generator=gen) / 3
    rows = [int(n) for n in torch.randint(2, 9, (3,), generator=gen)] + [1]
    batches = [torch.randn(n, 8, generator=gen) for n in rows]
    bad_width = [5, 12][int(torch.randint(2, (1,), generator=gen))]
    batches.insert(1 + int(torch.randint(3, (1,), generator=gen)), torch.randn(4, bad_width, generator=gen))
    return [(x, w) for x in batches]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    w = torch.randn(8, 8)
    batches = [torch.randn(4, 8), torch.randn(4, 5), torch.randn(6, 8)]
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w) for x in batches], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

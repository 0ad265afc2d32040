# /// exercise
# format_version = 1
# title = "A print inside a `try` block: Dynamo skips the whole function"
# syllabus = ["2.5.5.3"]
# entry = "encode"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: the results are right and the message is printed, but the report says 0 graphs, and `encode` is in the list of skipped frames.",
#   "The print is a graph break inside a `try` block. Dynamo cannot resume after a break inside `try` (the exception handler would have to span two graphs), so it skips the whole frame and runs it eagerly, without any error: lesson section 2.5.5.3.",
#   "The `try` is there for the matmul (a batch with the wrong width raises there), not for the print. Keep the `try` around the work that can fail and move the print after the `try`/`except`.",
#   "Dedent the print by one level, below the `except` block: `print(f\"encoded {tuple(h.shape)}\")`.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["tanh", "matmul"]
# points = 2
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Failed to trace builtin operator"]
# points = 1
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
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Compile a function whose `try` block holds a print.

`encode` guards its projection with `try`/`except RuntimeError` (a batch of the wrong width makes
the matmul raise; it then encodes zeros) and prints the shape it encoded. The grader compiles
`encode` with the default `fullgraph=False`: nothing fails, yet nothing is compiled. Make `encode`
compile (no skipped frame; the matmul and tanh in a graph), keeping the fallback for bad batches
and printing exactly what it prints now.
"""

import torch


def encode(x, w):
    try:
        h = torch.tanh(x @ w)
        # BEGIN STARTER
        # print(f"encoded {tuple(h.shape)}")  # TODO: a break inside a `try` block: Dynamo skips the whole function
        # END STARTER
    except RuntimeError:
        h = torch.zeros(x.shape[0], w.shape[1])
    # BEGIN SOLUTION
    print(f"encoded {tuple(h.shape)}")
    # END SOLUTION
    return h @ w.T


# BEGIN GRADER
def calls(gen):
    w = torch.randn(8, 8, generator=gen) / 3
    return [(torch.randn(4, 8, generator=gen), w) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(4, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

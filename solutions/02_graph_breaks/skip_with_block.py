# /// exercise
# format_version = 1
# title = "A print inside a `with` block: Dynamo skips the whole function"
# syllabus = ["2.5.5.2"]
# entry = "encode"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: it prints and returns the right values, but the report says 0 graphs, and `encode` is in the list of skipped frames.",
#   "The print is a graph break inside the `with region(...)` block. Dynamo cannot resume after a break inside a user context manager (it would have to split __enter__ and __exit__ across graphs), so it skips the whole frame: lesson section 2.5.5.2.",
#   "Keep the region, keep the print, and move the print out of the `with` block. A break between two blocks, or after one, is an ordinary, resumable break.",
#   "Inside the `with` block compute `h`; after it, `print(f\"{r.name}: {tuple(h.shape)}\")`, then the rest.",
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
"""Compile a function whose named region holds a print.

`encode` marks its main computation with `region`, a small context manager of the team's (a
profiler hooks into it). Inside the region it prints the shape of the hidden activations. The
grader compiles `encode` with the default `fullgraph=False`: nothing fails, yet nothing is
compiled. Make `encode` compile (no skipped frame; the matmul and tanh in a graph), keeping the
region and printing exactly what it prints now.
"""

import torch


class region:
    """Marks a named region of the model; a profiler can hook into __enter__ and __exit__."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def encode(x, w):
    with region("encoder") as r:
        h = torch.tanh(x @ w)
        # BEGIN STARTER
        # print(f"{r.name}: {tuple(h.shape)}")  # TODO: a break inside a `with` block: Dynamo skips the whole function
        # END STARTER
    # BEGIN SOLUTION
    print(f"{r.name}: {tuple(h.shape)}")
    # END SOLUTION
    return torch.softmax(h @ w.T, dim=-1)


# BEGIN GRADER
def calls(gen):
    w = torch.randn(8, 8, generator=gen) / 3
    return [(torch.randn(n, 8, generator=gen), w) for n in (3, 3, 3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(3, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

# /// exercise
# format_version = 1
# title = "A bounded encoder that reports its bound, compiled"
# syllabus = ["2.5.5.2"]
# entry = "encode"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: it prints and returns the right values, but the report says no graph holds the encoder's matmul, and `encode` is in the list of skipped frames.",
#   "The print is a graph break inside the `with bounded(...)` block. Dynamo cannot resume after a break inside a context manager of your own (it would have to end a graph between __enter__ and __exit__), so it skips the whole frame: lesson section 2.5.5.2. The clip helpers it calls still compile on their own, which is why a few small graphs appear.",
#   "The block has to stay: `clip` only clips inside it. What has to move is the print. A break after a `with` block, or between two of them, is an ordinary break. But the message reads the bound in effect, and after the block no bound is in effect: keep what the message needs from inside the block.",
#   "`with bounded(limit) as region:` and the two clips inside; after the block, `print(f\"bounded by {region.limit}: {tuple(h.shape)}\")`.",
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
# text = "Every call prints what it prints now: `bounded by LIMIT: (ROWS, COLUMNS)`, once."
# checks = ["message"]
#
# [[requirements]]
# id = "still_bounded"
# text = "`encode` returns what it returns now, both clips included, for any limit."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "two_blocks"
# why = "the region split in two, with the print between the blocks (a break between two with blocks is resumable)"
#
# [[fair]]
# name = "bound_kept"
# why = "the bound in effect copied into a local inside the block, printed after it"
#
# [[wrong]]
# name = "print_in_helper"
# breaks = "compiles"
# fails = ["skips"]
# message = "Dynamo skipped the frame of `encode`"
#
# [[wrong]]
# name = "print_dropped"
# breaks = "same_message"
# fails = ["message"]
# message = "The message is gone"
#
# [[wrong]]
# name = "block_dropped"
# breaks = "still_bounded"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "disabled_report"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Compile an encoder whose bounded region reports the bound it applies.

`bounded` is a small context manager of the team's: inside `with bounded(limit):`, `clip` limits
activations to `[-limit, limit]` (outside every `bounded` block it leaves them alone; blocks may
nest, and the innermost bound counts). `encode` clips twice inside such a block and prints, from
inside it, the bound in effect and the shape it encoded. The grader compiles `encode` with the
default `fullgraph=False` and calls it with limits of its own: nothing fails, yet the encoder's
work is never compiled.
"""

import torch


class bounded:
    """The team's activation bound. The bounds in effect are `bounded.limits`, innermost last."""

    limits = []

    def __init__(self, limit):
        self.limit = limit

    def __enter__(self):
        bounded.limits.append(self.limit)
        return self

    def __exit__(self, *exc):
        bounded.limits.pop()
        return False


def clip(h):
    """Clip to the innermost bound in effect; outside every bounded block, leave h as it is."""
    if not bounded.limits:
        return h
    return h.clamp(-bounded.limits[-1], bounded.limits[-1])


# BEGIN WRONG print_in_helper
# def report(h):
#     print(f"bounded by {bounded.limits[-1]}: {tuple(h.shape)}")
# END WRONG
# BEGIN WRONG disabled_report
# @torch.compiler.disable
# def report(limit, h):
#     print(f"bounded by {limit}: {tuple(h.shape)}")
# END WRONG


def encode(x, w, limit):
    # BEGIN SOLUTION
    with bounded(limit) as region:
        h = clip(x @ w)
        h = clip(torch.tanh(h) * 3)
    print(f"bounded by {region.limit}: {tuple(h.shape)}")
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: Dynamo gives up on this function; find out why, and make it compile.
    # with bounded(limit):
    #     h = clip(x @ w)
    #     print(f"bounded by {bounded.limits[-1]}: {tuple(h.shape)}")
    #     h = clip(torch.tanh(h) * 3)
    # END STARTER
    # BEGIN FAIR two_blocks
    # with bounded(limit) as first:
    #     h = clip(x @ w)
    # print(f"bounded by {first.limit}: {tuple(h.shape)}")
    # with bounded(limit):
    #     h = clip(torch.tanh(h) * 3)
    # END FAIR
    # BEGIN FAIR bound_kept
    # with bounded(limit):
    #     h = clip(x @ w)
    #     in_effect = bounded.limits[-1]
    #     h = clip(torch.tanh(h) * 3)
    # print(f"bounded by {in_effect}: {tuple(h.shape)}")
    # END FAIR
    # BEGIN WRONG print_in_helper
    # with bounded(limit):
    #     h = clip(x @ w)
    #     report(h)
    #     h = clip(torch.tanh(h) * 3)
    # END WRONG
    # BEGIN WRONG print_dropped
    # with bounded(limit):
    #     h = clip(x @ w)
    #     h = clip(torch.tanh(h) * 3)
    # END WRONG
    # BEGIN WRONG block_dropped
    # h = clip(x @ w)
    # print(f"bounded by {limit}: {tuple(h.shape)}")
    # h = clip(torch.tanh(h) * 3)
    # END WRONG
    # BEGIN WRONG disabled_report
    # with bounded(limit):
    #     h = clip(x @ w)
    #     report(limit, h)
    #     h = clip(torch.tanh(h) * 3)
    # END WRONG
    return torch.softmax(h @ w.T, dim=-1)


# BEGIN GRADER
def calls(gen):
    """Three calls with limits drawn per seed (whole and fractional, so that a bound printed from
    anything but the bound in effect shows), batches of several sizes, one row among them. The
    weights are large enough that both clips cut values."""
    w = torch.randn(8, 8, generator=gen)
    limits = [0.5 + int(torch.randint(0, 6, (1,), generator=gen)) / 4 for _ in range(2)] + [2]
    rows = [int(torch.randint(2, 7, (1,), generator=gen)), 1, int(torch.randint(2, 7, (1,), generator=gen))]
    return [(torch.randn(n, 8, generator=gen), w, limit) for n, limit in zip(rows, limits)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_calls

    x, w = torch.randn(3, 8), torch.randn(8, 8)
    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and skipped
    # frames as any backend, without Inductor's compile time.
    tally = tally_calls(encode, [(x, w, 2.0), (x, w, 1.5)], backend="eager")
    print(tally)
    print("frames Dynamo skipped (ran eagerly):", tally.skipped or "none")

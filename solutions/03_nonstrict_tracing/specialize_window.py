# /// exercise
# format_version = 1
# title = "Pool sequences of every length through a traced helper"
# syllabus = ["3.2"]
# entry = "embed"
# starter_fails = ["follows_length"]
# hints = [
#   "Run the file: sequences of other lengths than the first get a wrong vector from the traced graph, and no error. Print the graph's code and look for numbers that came from the first sequence.",
#   "Two lines read `tokens.shape[1]` as a plain Python int while tracing. The `if` is decided once, for the first length, and the division divides by the first call's count forever.",
#   "Let tensor operations see the length instead of Python: a slice with a negative start keeps the last WINDOW tokens of any sequence (all of them when it is shorter), and an operation that averages over a dimension reads its size when the graph runs. Or pass the count in as a tensor from `embed`, which runs as Python on every call (lesson section 3.2).",
#   "return tokens[:, -WINDOW:].mean(dim=1)",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "follows_length"
# helper = "mean_pool"
# points = 4
#
# [[requirements]]
# id = "every_length"
# text = "For every sequence length from 1 token up, `embed` returns the squashed average of each sequence's last `WINDOW` tokens (all of them when it is shorter), computed by the graph traced from `mean_pool` on the first call."
# checks = ["follows_length"]
#
# [[fair]]
# name = "flipped"
# why = "the sequence reversed, its first WINDOW tokens averaged"
#
# [[fair]]
# name = "count_as_tensor"
# why = "the caller counts the tokens that take part and passes the count in as a tensor"
#
# [[wrong]]
# name = "division_only"
# breaks = "every_length"
# fails = ["follows_length"]
# message = "output differs from the reference"
#
# [[wrong]]
# name = "window_only"
# breaks = "every_length"
# fails = ["follows_length"]
# message = "output differs from the reference"
#
# [[wrong]]
# name = "pooled_beside"
# breaks = "every_length"
# fails = ["follows_length"]
# message = "When the grader changed what the graph traced from `mean_pool` returns, the output of call\\(s\\) 1, 2"
#
# [[wrong]]
# name = "symbolic_count"
# breaks = "every_length"
# fails = ["follows_length"]
# message = "output differs from the reference"
# ///
"""Make the traced `mean_pool` right for sequences of every length.

`embed(tokens)` turns a batch of token sequences, shape `(batch, length, features)`, into one
vector per sequence: the average of its last `WINDOW` tokens (all of them, for a shorter
sequence), squashed. The averaging, `mean_pool`, is traced non-strictly once and replayed as a
graph afterwards. Traced, it is right only for sequences as long as the first one, and wrong,
silently, for the others.

The grader traces `mean_pool` on the first call, then calls `embed` with sequences of other
lengths and compares with the program run eagerly.
"""

# BEGIN STARTER
# # TODO: find out why the traced pipeline is wrong for most lengths, and fix it.
# END STARTER

import torch

WINDOW = 8  # only the last WINDOW tokens of a sequence count


def mean_pool(tokens):
    """Average of the last WINDOW tokens of (batch, length, features). Traced once, non-strictly."""
    # BEGIN SOLUTION
    return tokens[:, -WINDOW:].mean(dim=1)
    # END SOLUTION
    # BEGIN STARTER
    # if tokens.shape[1] > WINDOW:
    #     tokens = tokens[:, tokens.shape[1] - WINDOW:]
    # return tokens.sum(dim=1) / tokens.shape[1]
    # END STARTER
    # BEGIN FAIR flipped
    # return tokens.flip(1)[:, :WINDOW].mean(dim=1)
    # END FAIR
    # BEGIN WRONG division_only
    # if tokens.shape[1] > WINDOW:
    #     tokens = tokens[:, tokens.shape[1] - WINDOW:]
    # return tokens.mean(dim=1)
    # END WRONG
    # BEGIN WRONG window_only
    # last = tokens[:, -WINDOW:]
    # return last.sum(dim=1) / last.shape[1]
    # END WRONG
    # BEGIN WRONG symbolic_count
    # last = tokens[:, -WINDOW:]
    # return last.sum(dim=1) / torch.sym_float(last.shape[1])  # a symbol only under tracing_mode="symbolic"
    # END WRONG


# BEGIN FAIR count_as_tensor
# def mean_pool(tokens, count):
#     """Average of the last WINDOW tokens of (batch, length, features). Traced once, non-strictly."""
#     return tokens[:, -WINDOW:].sum(dim=1) / count
# END FAIR


def embed(tokens):
    """One vector per sequence: the squashed average of its last tokens."""
    # BEGIN SOLUTION
    return torch.tanh(mean_pool(tokens))
    # END SOLUTION
    # BEGIN STARTER
    # return torch.tanh(mean_pool(tokens))
    # END STARTER
    # BEGIN WRONG pooled_beside
    # mean_pool(tokens)  # traced and replayed, its result unused
    # return torch.tanh(tokens[:, -WINDOW:].mean(dim=1))
    # END WRONG
    # BEGIN FAIR count_as_tensor
    # count = torch.tensor(float(min(tokens.shape[1], WINDOW)))
    # return torch.tanh(mean_pool(tokens, count))
    # END FAIR


# BEGIN GRADER
def calls(gen):
    """Seven calls. The first length is drawn per seed from both sides of WINDOW; then lengths on
    the other side, exactly WINDOW, WINDOW + 1, a single token, and one far past what the demo shows."""
    first = int(torch.randint(2, 20, (1,), generator=gen))
    shorter = int(torch.randint(2, 8, (1,), generator=gen))
    longer = int(torch.randint(10, 40, (1,), generator=gen))
    lengths = [first, shorter if first > 8 else longer, 8, 9, 1, longer + 20, shorter]
    batch = int(torch.randint(1, 4, (1,), generator=gen))
    return [(torch.randn(batch, n, 6, generator=gen) + 1,) for n in lengths]
# END GRADER


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_pool, traced = mean_pool, []

    def pool_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            traced.append(make_fx(eager_pool, tracing_mode="fake")(*args))
            print(traced[0].code)
        return traced[0](*args)

    for length in (4, 12, 2, 20):
        tokens = torch.arange(float(length)).reshape(1, length, 1) / 10  # token i holds i / 10
        mean_pool = eager_pool
        eager = embed(tokens)
        mean_pool = pool_traced_once
        replayed = embed(tokens)
        print(f"length {length:>2}: eager {eager[0].item():.4f}  traced {replayed[0].item():.4f}")

# /// exercise
# format_version = 1
# title = "Serve a ranker at any batch size and length without compiling each shape"
# syllabus = ["4.1.1", "4.1"]
# entry = "make_ranker"
# factory = true
# driver = "run"
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: the scoring requests compile once, as planned, and then the first compare request raises ConstraintViolationError. Read the message to its end: what did the code do to the size you marked?",
#   "A compare request unpacks the pooled batch into exactly two rows (`first, second = pooled`). That pins dimension 0 to 2: a specialisation. `mark_dynamic` is a promise that the dimension stays symbolic, and Dynamo raises when code breaks the promise.",
#   "There is a marker that asks for a symbolic size but lets the code specialise it where it must (lesson section 4.1.1); the compare requests then get a graph of their own, once. Marking dimension 0 only where it really varies works too.",
#   "In `run`: `torch._dynamo.maybe_mark_dynamic(tokens, 0)` and `torch._dynamo.maybe_mark_dynamic(tokens, 1)`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-5
# atol = 1e-6
# points = 1
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "answers"
# text = "Every request is answered, scores and compare requests alike, with the same numbers as the model run eagerly."
# checks = ["compiles", "correct"]
#
# [[requirements]]
# id = "no_shape_recompiles"
# text = "A new batch size or sequence length never recompiles: at most one recompile over the whole schedule (the first request of the other kind)."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "compiled"
# text = "Every request runs the compiled model: none falls back to eager code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "mark_where_it_varies"
# why = "mark_dynamic on the length always and on the batch only for scoring requests, whose batch size really varies"
#
# [[fair]]
# name = "maybe_batch_mark_length"
# why = "maybe_mark_dynamic on the batch, which compare requests pin, and mark_dynamic on the length, which nothing pins"
#
# [[wrong]]
# name = "bounded_mark"
# breaks = "answers"
# fails = ["compiles"]
# message = "ConstraintViolationError|specialized"
#
# [[wrong]]
# name = "no_markers"
# breaks = "no_shape_recompiles"
# fails = ["recompiles"]
# message = "recompile\\(s\\)"
#
# [[wrong]]
# name = "batch_only"
# breaks = "no_shape_recompiles"
# fails = ["recompiles"]
# message = "recompile\\(s\\)"
#
# [[wrong]]
# name = "reset_after_each_request"
# breaks = "no_shape_recompiles"
# fails = ["recompiles"]
# message = "after your code reset Dynamo"
#
# [[wrong]]
# name = "eager_compares"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "ran compiled code"
# ///
"""Serve the ranker at any batch size and sequence length without a compile per shape.

`run(model, tokens, mode)` is the service's request handler. `tokens` is a batch of token ids of
shape (batch, length); a "score" request holds 2 or more sequences and gets one score each, a
"compare" request holds exactly two sequences and gets their similarity. Batch sizes and lengths
change from one request to the next (both at least 2). The grader builds the model with
`make_ranker()`, compiles it (default settings) and calls your `run` with it over a mixed
schedule of requests. `run` marks the sizes as dynamic so that a new shape does not recompile,
and yet the service fails. Make it work.
"""

import torch
import torch.nn.functional as F


class Ranker(torch.nn.Module):
    def __init__(self, vocabulary=100, width=16):
        super().__init__()
        self.embed = torch.nn.Embedding(vocabulary, width)
        self.project = torch.nn.Linear(width, width)

    def forward(self, tokens, mode):
        pooled = self.project(self.embed(tokens)).mean(dim=1)  # one vector per sequence
        if mode == "compare":
            first, second = pooled  # a compare request holds exactly two sequences
            return F.cosine_similarity(first, second, dim=0)
        return pooled.norm(dim=-1)


def make_ranker():
    torch.manual_seed(0)
    return Ranker()


# BEGIN STARTER
# # TODO: the service sends any batch size and length, yet this handler fails on some requests
# END STARTER
def run(model, tokens, mode):
    # BEGIN SOLUTION
    torch._dynamo.maybe_mark_dynamic(tokens, 0)
    torch._dynamo.maybe_mark_dynamic(tokens, 1)
    return model(tokens, mode)
    # END SOLUTION
    # BEGIN STARTER
    # torch._dynamo.mark_dynamic(tokens, 0)
    # torch._dynamo.mark_dynamic(tokens, 1)
    # return model(tokens, mode)
    # END STARTER
    # BEGIN FAIR mark_where_it_varies
    # torch._dynamo.mark_dynamic(tokens, 1)
    # if mode == "score":
    #     torch._dynamo.mark_dynamic(tokens, 0)
    # return model(tokens, mode)
    # END FAIR
    # BEGIN FAIR maybe_batch_mark_length
    # torch._dynamo.maybe_mark_dynamic(tokens, 0)
    # torch._dynamo.mark_dynamic(tokens, 1)
    # return model(tokens, mode)
    # END FAIR
    # BEGIN WRONG bounded_mark
    # torch._dynamo.mark_dynamic(tokens, 0, min=2, max=64)
    # torch._dynamo.mark_dynamic(tokens, 1, min=2, max=64)
    # return model(tokens, mode)
    # END WRONG
    # BEGIN WRONG no_markers
    # return model(tokens, mode)
    # END WRONG
    # BEGIN WRONG batch_only
    # torch._dynamo.maybe_mark_dynamic(tokens, 0)
    # return model(tokens, mode)
    # END WRONG
    # BEGIN WRONG reset_after_each_request
    # scores = model(tokens, mode)
    # torch.compiler.reset()  # no compile is ever a recompile
    # return scores
    # END WRONG
    # BEGIN WRONG eager_compares
    # if mode == "compare":
    #     with torch.compiler.set_stance("force_eager"):
    #         return model(tokens, mode)
    # torch._dynamo.mark_dynamic(tokens, 0)
    # torch._dynamo.mark_dynamic(tokens, 1)
    # return model(tokens, mode)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Ten requests: the first a scoring request, then scoring and compare requests in an order
    drawn per seed (at least two compares), every batch size (2 included) and length drawn, so
    each dimension changes on its own at some point."""
    modes = ["compare", "compare"] + ["score" if bool(torch.rand((), generator=gen) < 0.7) else "compare" for _ in range(7)]
    order = torch.randperm(len(modes), generator=gen).tolist()
    schedule = [("score", 5, 7)]
    for index in order:
        mode = modes[index]
        batch = 2 if mode == "compare" else int(torch.randint(2, 13, (1,), generator=gen))
        length = int(torch.randint(2, 17, (1,), generator=gen))
        schedule.append((mode, batch, length))
    schedule[2] = ("score", schedule[1][1], schedule[1][2] + 1 if schedule[1][2] < 16 else 2)  # only the length changes
    return [(torch.randint(0, 100, (batch, length), generator=gen), mode) for mode, batch, length in schedule]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    requests = [(torch.randint(0, 100, (4, 6)), "score"), (torch.randint(0, 100, (7, 9)), "score"),
                (torch.randint(0, 100, (2, 5)), "compare"), (torch.randint(0, 100, (3, 12)), "score")]

    def serve(compiled):
        for tokens, mode in requests:
            print(mode, tuple(tokens.shape), "->", run(compiled, tokens, mode).detach())

    print(tally_run(make_ranker(), serve))

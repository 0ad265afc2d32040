# Exercise ranker_sizes: Serve a ranker at any batch size and length without compiling each shape
# Edit this file, then check it with:  ./course check ranker_sizes
# Stuck? ./course hint ranker_sizes   Start over: ./course reset ranker_sizes
"""Serve the ranker at any batch size and sequence length without a compile per shape.

`run(model, tokens, mode)` is the service's request handler. `tokens` is a batch of token ids of
shape (batch, length); a "score" request holds 2 or more sequences and gets one score each, a
"compare" request holds exactly two sequences and gets their similarity. Batch sizes and lengths
change from one request to the next (both at least 2). The grader builds the model with
`make_ranker()`, compiles it (default settings) and calls your `run` with it over a mixed
schedule of requests. `run` marks the sizes as dynamic so that a new shape does not recompile,
and yet the service fails. Make it work.

What the grader checks:
- Every request is answered, scores and compare requests alike, with the same numbers as the model run eagerly.
- A new batch size or sequence length never recompiles: at most one recompile over the whole schedule (the first request of the other kind).
- Every request runs the compiled model: none falls back to eager code.
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


# TODO: the service sends any batch size and length, yet this handler fails on some requests
def run(model, tokens, mode):
    torch._dynamo.mark_dynamic(tokens, 0)
    torch._dynamo.mark_dynamic(tokens, 1)
    return model(tokens, mode)


if __name__ == "__main__":
    from autograder.lab import tally_run

    requests = [(torch.randint(0, 100, (4, 6)), "score"), (torch.randint(0, 100, (7, 9)), "score"),
                (torch.randint(0, 100, (2, 5)), "compare"), (torch.randint(0, 100, (3, 12)), "score")]

    def serve(compiled):
        for tokens, mode in requests:
            print(mode, tuple(tokens.shape), "->", run(compiled, tokens, mode).detach())

    print(tally_run(make_ranker(), serve))

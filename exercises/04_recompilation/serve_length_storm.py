# Exercise serve_length_storm: Serve requests of every length without compiling each length, end to end
# Edit this file, then check it with:  ./course check serve_length_storm
# Stuck? ./course hint serve_length_storm   Start over: ./course reset serve_length_storm
"""Encode chat requests of every length without paying a compile for each length.

`Encoder` encodes one request: a (length, 128) tensor of token vectors goes through causal
self-attention (each token attends to itself and the tokens before it), one output vector per
token. The tokenizer pads every request to a multiple of 64 tokens, and the service refuses
requests longer than `MAX_TOKENS`. To save the requests the cost of building their causal
masks, `Encoder` builds one mask per length the tokenizer can produce when it starts.

The grader builds the model with `make_encoder()`, compiles it with `fullgraph=True` and otherwise
default settings, and calls your `run(model, tokens)` once per request over a serving loop of
requests of several lengths. The answers are right, but the loop is slow: timed from a cold start,
as a freshly started server runs it, most of its time goes to compiling.

What the grader checks:
- Every request the service accepts (any multiple of 64 tokens up to `MAX_TOKENS`) gets the output it gets now: one vector per token, from causal self-attention (a token attends to itself and the tokens before it).
- Over the grader's serving loop (requests of six different lengths, multiples of 64 up to 512 tokens, each length twice, and one request longer than 1024 tokens) the model compiles at most three times: at most two recompiles.
- Every request runs the compiled model: none falls back to eager code.
- The whole serving loop, from a cold start with its compiles included, the model compiled with Inductor, runs at least 1.6x faster than the starting code compiled the same way (on a CPU).
"""

import math

import torch

WIDTH = 128
TOKEN_STEP = 64  # the tokenizer pads every request to a multiple of this
MAX_TOKENS = 2048  # the longest request the service accepts


class Encoder(torch.nn.Module):
    def __init__(self, width=WIDTH):
        super().__init__()
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.out = torch.nn.Linear(width, width)
        self.masks = {n: torch.ones(n, n, dtype=torch.bool).tril() for n in range(TOKEN_STEP, MAX_TOKENS + 1, TOKEN_STEP)}

    # TODO: timed from a cold start, this loop spends most of its time compiling. Why does each length compile?
    def forward(self, tokens):
        n = tokens.shape[0]
        mask = self.masks[n]
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        scores = (q @ k.T / math.sqrt(q.shape[-1])).masked_fill(~mask, float("-inf"))
        return self.out(torch.softmax(scores, dim=-1) @ v)


def make_encoder():
    torch.manual_seed(0)
    return Encoder().eval()


def run(model, tokens):
    with torch.no_grad():
        return model(tokens)


if __name__ == "__main__":
    import time

    from autograder.lab import tally_run

    lengths = [64 * k for k in (3, 1, 5, 3, 8, 2, 1, 5)]
    requests = [torch.randn(n, WIDTH) for n in lengths]

    def serve(compiled):
        for tokens in requests:
            run(compiled, tokens)

    print(tally_run(make_encoder(), serve, fullgraph=True))  # graphs and recompiles, with a cheap backend
    torch._dynamo.reset()
    compiled = torch.compile(make_encoder(), fullgraph=True)  # Inductor, as the grader times it
    started = time.perf_counter()
    serve(compiled)
    print(f"{len(requests)} requests from a cold start, compiles included: {time.perf_counter() - started:.1f} s")

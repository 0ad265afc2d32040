# Exercise hatch_vendor_break: Compile through vendor code that breaks the graph and reads its own settings
# Edit this file, then check it with:  ./course check hatch_vendor_break
# Stuck? ./course hint hatch_vendor_break   Start over: ./course reset hatch_vendor_break
"""Compile `block` into one graph without editing the vendor's code.

`block` calls `vendor_gate`, from a library you do not own. Somewhere in the vendor's code there
is a `torch._dynamo.graph_break()`, so `block` does not compile with `fullgraph=True`. The
serving loop, `serve`, sets the vendor's clip limit before each call (`vendor_set_limit`), and the
limit changes from call to call. The grader compiles `block` with `fullgraph=True` and the
`aot_eager` backend and calls `serve` with it; `serve` is the serving team's: leave it as it is.

What the grader checks:
- `block` compiles with `fullgraph=True` into one graph that serves every call.
- The vendor's code stays as it is, and its work (the `div` and `tanh` of `vendor_softclip`) is traced into the graph through `torch._dynamo.nonstrict_trace`.
- `block` returns what it returns now, the vendor's gate included, at the limit `serve` set for that call.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
"""

import torch


# --- vendor code: not yours to edit ------------------------------------------------------------
_limit = torch.tensor(2.0)  # the clip limit of vendor_gate, set with vendor_set_limit


def vendor_set_limit(limit):
    global _limit
    _limit = torch.tensor(float(limit))


def vendor_softclip(x, limit):
    """Squash values smoothly into (-limit, limit)."""
    y = torch.tanh(x / limit)
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    return y * limit


def vendor_gate(x):
    """The vendor's gated activation: a soft clip at the configured limit, scaled by a sigmoid gate."""
    return vendor_softclip(x, _limit) * torch.sigmoid(x)
# --- end of vendor code ------------------------------------------------------------------------


def block(x, weight):
    # TODO: make block compile with fullgraph=True; the vendor code above is not yours to edit.
    h = x @ weight
    h = vendor_gate(h)
    return torch.relu(h) + h.mean()


def serve(block_fn, x, weight, limit):
    """The serving loop's step: the vendor's limit for this request, then the block."""
    vendor_set_limit(limit)
    return block_fn(x, weight)


if __name__ == "__main__":
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    for limit in (2.0, 3.0):
        print(f"limit {limit}:", serve(compiled, torch.randn(2, 16), torch.randn(16, 16), limit))

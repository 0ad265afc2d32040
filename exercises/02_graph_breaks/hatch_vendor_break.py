# Exercise hatch_vendor_break: Compile through vendor code that breaks the graph
# Edit this file, then check it with:  ./course check hatch_vendor_break
# Stuck? ./course hint hatch_vendor_break   Start over: ./course reset hatch_vendor_break
"""Compile `block` into one graph without editing the vendor's code.

`block` calls `vendor_softclip`, a function from a library you do not own. The vendor left a
`torch._dynamo.graph_break()` in it, so `block` does not compile with `fullgraph=True`. Do not edit
`vendor_softclip` (the grader checks that its work is traced, through an escape hatch, into the
graph). Change `block` so that it compiles into one graph with `fullgraph=True` and gives the same
results.
"""

import torch


# --- vendor code: not yours to edit ------------------------------------------------------------
def vendor_softclip(x, limit):
    """Squash values smoothly into (-limit, limit)."""
    y = torch.tanh(x / limit)
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    return y * limit
# --- end of vendor code ------------------------------------------------------------------------


def block(x, weight):
    h = x @ weight
    h = vendor_softclip(h, 2.0)  # TODO: this call breaks the graph; you may not edit vendor_softclip
    return torch.relu(h) + h.mean()


if __name__ == "__main__":
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    print(compiled(torch.randn(4, 16), torch.randn(16, 16)))

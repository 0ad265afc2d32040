# Exercise strict_item_scale: Keep a strict model strict when a teammate's change passed its fullgraph test
# Edit this file, then check it with:  ./course check strict_item_scale
# Stuck? ./course hint strict_item_scale   Start over: ./course reset strict_item_scale
"""Make the strict model run again without giving up its strictness.

`Model.forward` is decorated with `torch._dynamo.error_on_graph_break(True)`: any graph break in
the team's code is an error, though the grader compiles with the default `fullgraph=False`. The
vendor block inside it has a known, deliberate break, and the team tolerates it with
`error_on_graph_break(False)` around that one call. A teammate then added `peak_scale`, which
divides the activations by their largest magnitude, and tested it alone with `fullgraph=True`:
it passed. In the model every call now raises. Fix it; the vendor code is not yours to edit.

What the grader checks:
- Every call runs under the grader's compile (default settings, the model's own strict setting) and returns the same results as the model run eagerly, an all-zero batch and one whose peak is below the 1e-6 floor included.
- The only graph break is the vendor's own, inside `_legacy_gelu`.
- The team's code stays strict: a new graph break in `peak_scale` is an error (the grader adds one to a hidden copy).
"""

import torch
import torch.nn.functional as F


# --- vendor code: not yours to edit ------------------------------------------------------------
def _legacy_gelu(h):
    h = h * 1.0
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    return F.gelu(h)


class VendorBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return _legacy_gelu(self.proj(x))
# --- end of vendor code ------------------------------------------------------------------------


# TODO: this passed its own fullgraph=True test, and fails inside the model
def peak_scale(h):
    """The largest magnitude in `h`, floored at 1e-6 so that an all-zero batch divides safely."""
    return max(h.abs().amax().item(), 1e-6)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vendor = VendorBlock()
        self.head = torch.nn.Linear(8, 4)

    @torch._dynamo.error_on_graph_break(True)
    def forward(self, x):
        h = torch.tanh(x)
        h = h / peak_scale(h)
        with torch._dynamo.error_on_graph_break(False):  # the vendor's known break, and no other
            h = self.vendor(h)
        return self.head(h)


def build():
    torch.manual_seed(0)
    return Model()


if __name__ == "__main__":
    from autograder.lab import run_case

    x = torch.randn(4, 8)
    print("peak_scale alone, fullgraph=True:", run_case(peak_scale, x, fullgraph=True, backend="eager"))
    print("the model, default settings:", run_case(build(), x, backend="eager"))

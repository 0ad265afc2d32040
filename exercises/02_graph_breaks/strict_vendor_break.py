# Exercise strict_vendor_break: A strict model that runs despite a vendor's graph break
# Edit this file, then check it with:  ./course check strict_vendor_break
# Stuck? ./course hint strict_vendor_break   Start over: ./course reset strict_vendor_break
"""Run a model that is strict about graph breaks and calls a vendor block that breaks.

`Model.forward` is decorated with `torch._dynamo.error_on_graph_break(True)`: the team wants any
graph break in its own code to be an error, even though the grader compiles with the default
`fullgraph=False`. The model also uses `VendorBlock`, third-party code you may not edit, whose
helper `_legacy_gelu` has a deliberate `torch._dynamo.graph_break()`. Today every call raises.
The grader also gives your `mix` function a hidden extra graph break and watches what happens.

What the grader checks:
- The compiled model runs: no call raises.
- The vendor's code stays as it is: its graph break is still there, tolerated where the vendor put it, and it is the only break.
- Any other graph break in the model's own code, such as a new one in `mix` (called before and after the vendor block), raises an error.
- The model computes what it computes now.
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
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x):
        return _legacy_gelu(self.proj(x))
# --- end of vendor code ------------------------------------------------------------------------


def mix(h, weight):
    return h + torch.tanh(h @ weight)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vendor = VendorBlock()
        self.weight = torch.nn.Parameter(torch.randn(16, 16) / 4)

    @torch._dynamo.error_on_graph_break(True)
    def forward(self, x):
        # TODO: every call raises; make the model run, and keep it strict about its own code.
        h = mix(x, self.weight)
        h = self.vendor(h)
        return mix(h, self.weight)


def build():
    return Model()


if __name__ == "__main__":
    from autograder.lab import run_case

    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and errors as
    # any backend, without Inductor's compile time.
    print(run_case(build(), torch.randn(4, 16), backend="eager"))

# /// exercise
# format_version = 1
# title = "A strict model that tolerates one third-party break"
# syllabus = ["2.5.3.1", "2.5.3", "2.5.3.3"]
# entry = "build"
# factory = true
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: `Model.forward` is decorated with error_on_graph_break(True), so the graph_break() inside the vendor's _legacy_gelu is an error.",
#   "The vendor's break is known and harmless, and the vendor's code is not yours to edit. The rest of the model is yours, and the team wants any new break in it to be an error. So do not remove the strict setting: make an exception for the vendor call only.",
#   "Lesson sections 2.5.3.1 and 2.5.3.3: error_on_graph_break(False) is a decorator and a context manager, and the innermost setting wins. The grader checks both sides: the vendor's break must be tolerated, and a new break in `mix` must still raise.",
#   "In Model.forward: `with torch._dynamo.error_on_graph_break(False):` around `h = self.vendor(h)`. Patching the vendor's class, `VendorBlock.forward = torch._dynamo.error_on_graph_break(False)(VendorBlock.forward)`, works too.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 1
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# # Only the vendor's own break, where the vendor put it; and it must still be there.
# allowed = ["Call to `torch._dynamo.graph_break()` @ _legacy_gelu"]
# required = ["Call to `torch._dynamo.graph_break()`"]
# points = 1
#
# [[checks]]
# kind = "probe_variant"
# name = "still_strict"
# helper = "mix"
# expect_type = "Call to `torch._dynamo.graph_break()`"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Keep the model strict about graph breaks, except inside one vendor block.

`Model.forward` is decorated with `torch._dynamo.error_on_graph_break(True)`: the team wants any
graph break in its own code to be an error, even though the grader compiles with the default
`fullgraph=False`. The model also uses `VendorBlock`, third-party code you may not edit, whose
helper `_legacy_gelu` has a deliberate `torch._dynamo.graph_break()`. Today every call raises.
Make the model run with the vendor's break tolerated, and keep every other break an error: the
grader gives your `mix` function a hidden extra break and expects the model to raise.
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
        h = mix(x, self.weight)
        # BEGIN SOLUTION
        with torch._dynamo.error_on_graph_break(False):
            h = self.vendor(h)
        # END SOLUTION
        # BEGIN STARTER
        # h = self.vendor(h)  # TODO: the vendor's known break must be tolerated here, and nowhere else
        # END STARTER
        return mix(h, self.weight)


def build():
    return Model()


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 16, generator=gen),) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import run_case

    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and errors as
    # any backend, without Inductor's compile time.
    print(run_case(build(), torch.randn(4, 16), backend="eager"))

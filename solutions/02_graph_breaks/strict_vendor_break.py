# /// exercise
# format_version = 1
# title = "A strict model that runs despite a vendor's graph break"
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
#
# [[requirements]]
# id = "runs"
# text = "The compiled model runs: no call raises."
# checks = ["compiles"]
#
# [[requirements]]
# id = "vendor_untouched"
# text = "The vendor's code stays as it is: its graph break is still there, tolerated where the vendor put it, and it is the only break."
# checks = ["breaks"]
#
# [[requirements]]
# id = "strict_elsewhere"
# text = "Any other graph break in the model's own code, such as a new one in `mix` (called before and after the vendor block), raises an error."
# checks = ["still_strict"]
#
# [[requirements]]
# id = "same_output"
# text = "The model computes what it computes now."
# checks = ["correct"]
#
# [[fair]]
# name = "patched_vendor"
# why = "the vendor's forward wrapped in error_on_graph_break(False) from this file, without editing the vendor's code"
#
# [[fair]]
# name = "tolerant_method"
# why = "a small method of Model, decorated with error_on_graph_break(False), makes the vendor call"
#
# [[wrong]]
# name = "vendor_disabled"
# breaks = "runs"
# fails = ["compiles"]
# message = "Skip (calling|inlining) `torch\\.compiler\\.disable\\(\\)`d function"
#
# [[wrong]]
# name = "vendor_break_deleted"
# breaks = "vendor_untouched"
# fails = ["breaks"]
# message = "is gone"
#
# [[wrong]]
# name = "strictness_dropped"
# breaks = "strict_elsewhere"
# fails = ["still_strict"]
# message = "ran without an error"
#
# [[wrong]]
# name = "block_around_everything"
# breaks = "strict_elsewhere"
# fails = ["still_strict"]
# message = "ran without an error"
#
# [[wrong]]
# name = "block_covers_second_mix"
# breaks = "strict_elsewhere"
# fails = ["still_strict"]
# message = "only in the call made at line \\d+\\), and your code ran without an error"
#
# [[wrong]]
# name = "vendor_replaced"
# breaks = "same_output"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Run a model that is strict about graph breaks and calls a vendor block that breaks.

`Model.forward` is decorated with `torch._dynamo.error_on_graph_break(True)`: the team wants any
graph break in its own code to be an error, even though the grader compiles with the default
`fullgraph=False`. The model also uses `VendorBlock`, third-party code you may not edit, whose
helper `_legacy_gelu` has a deliberate `torch._dynamo.graph_break()`. Today every call raises.
The grader also gives your `mix` function a hidden extra graph break and watches what happens.
"""

import torch
import torch.nn.functional as F


# --- vendor code: not yours to edit ------------------------------------------------------------
def _legacy_gelu(h):
    h = h * 1.0
    # BEGIN SOLUTION
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    # END SOLUTION
    # BEGIN STARTER
    # torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    # END STARTER
    # BEGIN WRONG vendor_break_deleted
    # pass  # the vendor's break, deleted
    # END WRONG
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


# BEGIN FAIR patched_vendor
# VendorBlock.forward = torch._dynamo.error_on_graph_break(False)(VendorBlock.forward)
# END FAIR
# BEGIN WRONG vendor_disabled
# VendorBlock.forward = torch.compiler.disable(VendorBlock.forward)
# END WRONG


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vendor = VendorBlock()
        self.weight = torch.nn.Parameter(torch.randn(16, 16) / 4)

    # BEGIN SOLUTION
    @torch._dynamo.error_on_graph_break(True)
    def forward(self, x):
        h = mix(x, self.weight)
        with torch._dynamo.error_on_graph_break(False):
            h = self.vendor(h)
        return mix(h, self.weight)
    # END SOLUTION
    # BEGIN STARTER
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     # TODO: every call raises; make the model run, and keep it strict about its own code.
    #     h = mix(x, self.weight)
    #     h = self.vendor(h)
    #     return mix(h, self.weight)
    # END STARTER
    # BEGIN FAIR patched_vendor
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = self.vendor(h)
    #     return mix(h, self.weight)
    # END FAIR
    # BEGIN FAIR tolerant_method
    # @torch._dynamo.error_on_graph_break(False)
    # def _call_vendor(self, h):
    #     return self.vendor(h)
    #
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = self._call_vendor(h)
    #     return mix(h, self.weight)
    # END FAIR
    # BEGIN WRONG vendor_disabled
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = self.vendor(h)
    #     return mix(h, self.weight)
    # END WRONG
    # BEGIN WRONG vendor_break_deleted
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = self.vendor(h)
    #     return mix(h, self.weight)
    # END WRONG
    # BEGIN WRONG strictness_dropped
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = self.vendor(h)
    #     return mix(h, self.weight)
    # END WRONG
    # BEGIN WRONG block_around_everything
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     with torch._dynamo.error_on_graph_break(False):
    #         h = mix(x, self.weight)
    #         h = self.vendor(h)
    #         return mix(h, self.weight)
    # END WRONG
    # BEGIN WRONG block_covers_second_mix
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     with torch._dynamo.error_on_graph_break(False):  # the vendor call, and the mix after it
    #         h = self.vendor(h)
    #         return mix(h, self.weight)
    # END WRONG
    # BEGIN WRONG vendor_replaced
    # @torch._dynamo.error_on_graph_break(True)
    # def forward(self, x):
    #     h = mix(x, self.weight)
    #     h = F.gelu(h)  # the vendor block's activation, without its break
    #     return mix(h, self.weight)
    # END WRONG


def build():
    return Model()


# BEGIN GRADER
def calls(gen):
    """Three batches of sizes drawn per seed, one row among them."""
    rows = [int(torch.randint(2, 7, (1,), generator=gen)), 1, int(torch.randint(2, 7, (1,), generator=gen))]
    return [(torch.randn(n, 16, generator=gen),) for n in rows]

# END GRADER


if __name__ == "__main__":
    from autograder.lab import run_case

    # backend="eager" runs the captured graphs as they are: the same graphs, breaks and errors as
    # any backend, without Inductor's compile time.
    print(run_case(build(), torch.randn(4, 16), backend="eager"))

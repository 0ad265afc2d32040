# /// exercise
# format_version = 1
# title = "Keep a strict model strict when a teammate's change passed its fullgraph test"
# syllabus = ["2.5.3.5", "2.5.3"]
# entry = "build"
# factory = true
# allow_config = ["capture_scalar_outputs"]
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: `peak_scale` alone compiles with fullgraph=True, yet the model raises at its `.item()` under error_on_graph_break(True). Read the reason: which setting does it name?",
#   "fullgraph=True quietly turns on the capture of scalar outputs (`.item()` becomes a symbolic number in the graph); error_on_graph_break(True) does not, so there the `.item()` is a graph break, and a break is an error (lesson section 2.5.3.5).",
#   "Do not loosen the strict setting around the new code (that turns the error into a break), and do not drop it. Either stay in tensors (a 0-d tensor divides a tensor as well as a float does), or turn on what fullgraph=True turns on, for the whole program.",
#   "In `peak_scale`: `return h.abs().amax().clamp_min(1e-6)`. Or at the top of the file: `torch._dynamo.config.capture_scalar_outputs = True`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "breaks_allowed"
# name = "breaks"
# allowed = ["Call to `torch._dynamo.graph_break()` @ _legacy_gelu"]
# required = ["Call to `torch._dynamo.graph_break()`"]
# points = 2
#
# [[checks]]
# kind = "probe_variant"
# name = "still_strict"
# helper = "peak_scale"
# expect_type = "Call to `torch._dynamo.graph_break()`"
# points = 2
#
# [[requirements]]
# id = "runs"
# text = "Every call runs under the grader's compile (default settings, the model's own strict setting) and returns the same results as the model run eagerly, an all-zero batch and one whose peak is below the 1e-6 floor included."
# checks = ["compiles", "correct"]
#
# [[requirements]]
# id = "only_vendor_break"
# text = "The only graph break is the vendor's own, inside `_legacy_gelu`."
# checks = ["breaks"]
#
# [[requirements]]
# id = "still_strict"
# text = "The team's code stays strict: a new graph break in `peak_scale` is an error (the grader adds one to a hidden copy)."
# checks = ["still_strict"]
#
# [[fair]]
# name = "capture_scalars"
# why = "capture_scalar_outputs turned on for the program, so the .item() is captured as under fullgraph=True"
#
# [[fair]]
# name = "where_floor"
# why = "the floor written with torch.where on the 0-d tensor"
#
# [[wrong]]
# name = "lenient_item"
# breaks = "only_vendor_break"
# fails = ["breaks"]
# message = "Tensor\\.item\\(\\)"
#
# [[wrong]]
# name = "drop_strict"
# breaks = "still_strict"
# fails = ["still_strict"]
# message = "ran without an error"
#
# [[wrong]]
# name = "float_instead"
# breaks = "runs"
# fails = ["compiles"]
# message = "item|[Gg]raph break"
#
# [[wrong]]
# name = "floor_added"
# breaks = "runs"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "no_floor"
# breaks = "runs"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make the strict model run again without giving up its strictness.

`Model.forward` is decorated with `torch._dynamo.error_on_graph_break(True)`: any graph break in
the team's code is an error, though the grader compiles with the default `fullgraph=False`. The
vendor block inside it has a known, deliberate break, and the team tolerates it with
`error_on_graph_break(False)` around that one call. A teammate then added `peak_scale`, which
divides the activations by their largest magnitude, and tested it alone with `fullgraph=True`:
it passed. In the model every call now raises. Fix it; the vendor code is not yours to edit.
"""

import torch
import torch.nn.functional as F

# BEGIN FAIR capture_scalars
# torch._dynamo.config.capture_scalar_outputs = True
# END FAIR


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


# BEGIN STARTER
# # TODO: this passed its own fullgraph=True test, and fails inside the model
# END STARTER
def peak_scale(h):
    """The largest magnitude in `h`, floored at 1e-6 so that an all-zero batch divides safely."""
    # BEGIN SOLUTION
    return h.abs().amax().clamp_min(1e-6)
    # END SOLUTION
    # BEGIN STARTER
    # return max(h.abs().amax().item(), 1e-6)
    # END STARTER
    # BEGIN FAIR capture_scalars
    # return max(h.abs().amax().item(), 1e-6)
    # END FAIR
    # BEGIN WRONG floor_added
    # return h.abs().amax() + 1e-6  # never zero, and no branch
    # END WRONG
    # BEGIN FAIR where_floor
    # peak = h.abs().amax()
    # return torch.where(peak > 1e-6, peak, torch.full_like(peak, 1e-6))
    # END FAIR
    # BEGIN WRONG lenient_item
    # with torch._dynamo.error_on_graph_break(False):
    #     return max(h.abs().amax().item(), 1e-6)
    # END WRONG
    # BEGIN WRONG drop_strict
    # return max(h.abs().amax().item(), 1e-6)
    # END WRONG
    # BEGIN WRONG float_instead
    # return max(float(h.abs().amax()), 1e-6)
    # END WRONG
    # BEGIN WRONG no_floor
    # return h.abs().amax()
    # END WRONG


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vendor = VendorBlock()
        self.head = torch.nn.Linear(8, 4)

    # BEGIN SOLUTION
    @torch._dynamo.error_on_graph_break(True)
    # END SOLUTION
    # BEGIN STARTER
    # @torch._dynamo.error_on_graph_break(True)
    # END STARTER
    # BEGIN WRONG drop_strict
    #
    # END WRONG
    def forward(self, x):
        h = torch.tanh(x)
        h = h / peak_scale(h)
        with torch._dynamo.error_on_graph_break(False):  # the vendor's known break, and no other
            h = self.vendor(h)
        return self.head(h)


def build():
    torch.manual_seed(0)
    return Model()


# BEGIN GRADER
def calls(gen):
    """Four batches of one shape drawn per seed, one of them all zeros and one whose peak is far
    below the 1e-6 floor (where the floor, not the peak, scales: a floor added to the peak instead
    shows), at positions drawn per seed."""
    rows = int(torch.randint(1, 7, (1,), generator=gen))
    batches = [torch.randn(rows, 8, generator=gen) * 3 for _ in range(4)]
    zero, tiny = torch.randperm(4, generator=gen)[:2].tolist()
    batches[zero] = torch.zeros(rows, 8)
    batches[tiny] = torch.randn(rows, 8, generator=gen) * 1e-7
    return [(x,) for x in batches]

# END GRADER


if __name__ == "__main__":
    from autograder.lab import run_case

    x = torch.randn(4, 8)
    print("peak_scale alone, fullgraph=True:", run_case(peak_scale, x, fullgraph=True, backend="eager"))
    print("the model, default settings:", run_case(build(), x, backend="eager"))

# /// exercise
# format_version = 1
# title = "Trace a vendor layer non-strictly"
# syllabus = ["2.3"]
# entry = "head"
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["compiles", "hatch"]
# hints = [
#   "Run the file: fullgraph=True stops inside vendor_layer, at json.loads (\"Unsupported method call\").",
#   "vendor_layer only uses torch operations on its tensors, and it is pure. Dynamo cannot trace the JSON parser, but a non-strict trace (running the Python as is, recording the torch calls) can.",
#   "Lesson section 2.3: wrap the call in torch._dynamo.nonstrict_trace. Its inputs must be tensors, Python constants, or types registered with torch.utils._pytree, and a LayerSpec is none of those yet (\"Invalid input type for nonstrict_trace-ed function\").",
#   "Call `torch._dynamo.nonstrict_trace(vendor_layer)(x, spec)` in head, and register the dataclass once, at import: `torch.utils._pytree.register_dataclass(LayerSpec)`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "escape_hatch"
# name = "hatch"
# via = "nonstrict_trace"
# ops = ["aten.gelu", "aten.addmm"]
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Compile `head` into one graph without editing the vendor's layer.

`head` packs its weights into the vendor's `LayerSpec` dataclass and runs `vendor_layer`, which
reads its options from the JSON string stored in the spec. Dynamo cannot trace `json.loads`, so `head` does not compile with `fullgraph=True`.
Do not edit `vendor_layer` or `LayerSpec`. Make `head` compile into one graph with
`fullgraph=True` (the grader uses the `aot_eager` backend and checks that the layer's operations
are traced into the graph) and return the same results.
"""

import dataclasses
import json

import torch
import torch.utils._pytree as pytree


# --- vendor code: not yours to edit ------------------------------------------------------------
@dataclasses.dataclass
class LayerSpec:
    weight: torch.Tensor
    bias: torch.Tensor
    options: str  # JSON, as stored in the vendor's config files


def vendor_layer(x, spec):
    opts = json.loads(spec.options)
    h = torch.addmm(spec.bias, x, spec.weight)
    if opts["activation"] == "gelu":
        h = torch.nn.functional.gelu(h)
    return h * opts["scale"]
# --- end of vendor code ------------------------------------------------------------------------


# BEGIN SOLUTION
pytree.register_dataclass(LayerSpec)
# END SOLUTION


OPTIONS = '{"activation": "gelu", "scale": 0.5}'


def head(x, weight, bias):
    spec = LayerSpec(weight, bias, OPTIONS)
    # BEGIN SOLUTION
    h = torch._dynamo.nonstrict_trace(vendor_layer)(x, spec)
    # END SOLUTION
    # BEGIN STARTER
    # h = vendor_layer(x, spec)  # TODO: Dynamo cannot trace json.loads; trace this call non-strictly
    # END STARTER
    return torch.softmax(h, dim=-1)


# BEGIN GRADER
def calls(gen):
    weight, bias = torch.randn(8, 4, generator=gen), torch.randn(4, generator=gen)
    return [(torch.randn(3, 8, generator=gen), weight, bias) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    print(torch.compile(head, fullgraph=True, backend="aot_eager")(torch.randn(3, 8), torch.randn(8, 4), torch.randn(4)))

# Exercise nonstrict_layer: Trace a vendor layer non-strictly
# Edit this file, then check it with:  ./course check nonstrict_layer
# Stuck? ./course hint nonstrict_layer   Start over: ./course reset nonstrict_layer
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


OPTIONS = '{"activation": "gelu", "scale": 0.5}'


def head(x, weight, bias):
    spec = LayerSpec(weight, bias, OPTIONS)
    h = vendor_layer(x, spec)  # TODO: Dynamo cannot trace json.loads; trace this call non-strictly
    return torch.softmax(h, dim=-1)


if __name__ == "__main__":
    print(torch.compile(head, fullgraph=True, backend="aot_eager")(torch.randn(3, 8), torch.randn(8, 4), torch.randn(4)))

# Exercise nonstrict_layer: Compile a head around a vendor layer that parses JSON
# Edit this file, then check it with:  ./course check nonstrict_layer
# Stuck? ./course hint nonstrict_layer   Start over: ./course reset nonstrict_layer
"""Compile `head` into one graph without editing the vendor's layer.

`head` packs its weights into the vendor's `LayerSpec` dataclass and runs `vendor_layer`, which
reads its options from the JSON string stored in the spec. The grader compiles `head` with
`fullgraph=True` and the `aot_eager` backend, and it does not compile.

What the grader checks:
- `head` compiles with `fullgraph=True` into one graph that serves every call.
- `vendor_layer` and `LayerSpec` stay as they are, and the layer's work (its `addmm` and `gelu`) is traced into the graph through `torch._dynamo.nonstrict_trace`.
- `head` returns what it returns now.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`.
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
    # TODO: make head compile with fullgraph=True; the vendor code above is not yours to edit.
    spec = LayerSpec(weight, bias, OPTIONS)
    h = vendor_layer(x, spec)
    return torch.softmax(h, dim=-1)


if __name__ == "__main__":
    print(torch.compile(head, fullgraph=True, backend="aot_eager")(torch.randn(3, 8), torch.randn(8, 4), torch.randn(4)))

# /// exercise
# format_version = 1
# title = "Compile a head around a vendor layer that parses JSON"
# syllabus = ["2.3"]
# entry = "head"
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["compiles", "hatch"]
# hints = [
#   "Run the file: fullgraph=True stops inside vendor_layer, at json.loads (\"Unsupported method call\").",
#   "vendor_layer only uses torch operations on its tensors, and it is pure. Dynamo cannot trace the JSON parser, but a non-strict trace (running the Python as it is, recording the torch calls) can.",
#   "Lesson section 2.3: torch._dynamo.nonstrict_trace. Its inputs must be tensors, Python constants, or types registered with torch.utils._pytree, and a LayerSpec is none of those yet (\"Invalid input type for nonstrict_trace-ed function\").",
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
#
# [[requirements]]
# id = "one_graph"
# text = "`head` compiles with `fullgraph=True` into one graph that serves every call."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "vendor_traced"
# text = "`vendor_layer` and `LayerSpec` stay as they are, and the layer's work (its `addmm` and `gelu`) is traced into the graph through `torch._dynamo.nonstrict_trace`."
# checks = ["hatch"]
#
# [[requirements]]
# id = "same_results"
# text = "`head` returns what it returns now."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "tensor_wrapper"
# why = "a hatched wrapper of your own that takes only tensors and builds the spec inside, so nothing needs registering"
#
# [[fair]]
# name = "options_as_context"
# why = "LayerSpec registered by hand with register_pytree_node: the tensors as children, the JSON string as context"
#
# [[wrong]]
# name = "unregistered"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "Invalid input type"
#
# [[wrong]]
# name = "rewritten"
# breaks = "vendor_traced"
# fails = ["hatch"]
# message = "no nonstrict_trace call"
#
# [[wrong]]
# name = "rewritten_scale_lost"
# breaks = "same_results"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "in_graph_opaque"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "allow_in_graph"
# ///
"""Compile `head` into one graph without editing the vendor's layer.

`head` packs its weights into the vendor's `LayerSpec` dataclass and runs `vendor_layer`, which
reads its options from the JSON string stored in the spec. The grader compiles `head` with
`fullgraph=True` and the `aot_eager` backend, and it does not compile.
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
# BEGIN FAIR options_as_context
# pytree.register_pytree_node(
#     LayerSpec,
#     lambda spec: ((spec.weight, spec.bias), spec.options),
#     lambda tensors, options: LayerSpec(*tensors, options),
# )
# END FAIR
# BEGIN WRONG unregistered
# pass  # nothing registered: nonstrict_trace is expected to take a dataclass as it is
# END WRONG
# BEGIN WRONG in_graph_opaque
# pytree.register_dataclass(LayerSpec)
# layer_in_graph = torch.compiler.allow_in_graph(vendor_layer)
# END WRONG


# BEGIN FAIR tensor_wrapper
# @torch._dynamo.nonstrict_trace
# def layer(x, weight, bias):
#     return vendor_layer(x, LayerSpec(weight, bias, OPTIONS))
# END FAIR


OPTIONS = '{"activation": "gelu", "scale": 0.5}'


def head(x, weight, bias):
    # BEGIN SOLUTION
    spec = LayerSpec(weight, bias, OPTIONS)
    h = torch._dynamo.nonstrict_trace(vendor_layer)(x, spec)
    return torch.softmax(h, dim=-1)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make head compile with fullgraph=True; the vendor code above is not yours to edit.
    # spec = LayerSpec(weight, bias, OPTIONS)
    # h = vendor_layer(x, spec)
    # return torch.softmax(h, dim=-1)
    # END STARTER
    # BEGIN FAIR tensor_wrapper
    # return torch.softmax(layer(x, weight, bias), dim=-1)
    # END FAIR
    # BEGIN WRONG unregistered
    # spec = LayerSpec(weight, bias, OPTIONS)
    # return torch.softmax(torch._dynamo.nonstrict_trace(vendor_layer)(x, spec), dim=-1)
    # END WRONG
    # BEGIN WRONG rewritten
    # h = torch.nn.functional.gelu(torch.addmm(bias, x, weight)) * 0.5
    # return torch.softmax(h, dim=-1)
    # END WRONG
    # BEGIN WRONG rewritten_scale_lost
    # h = torch.nn.functional.gelu(torch.addmm(bias, x, weight))
    # return torch.softmax(h, dim=-1)
    # END WRONG
    # BEGIN WRONG in_graph_opaque
    # spec = LayerSpec(weight, bias, OPTIONS)
    # return torch.softmax(layer_in_graph(x, spec), dim=-1)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Batches whose number of rows is drawn per seed and stays the same within a grading."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    weight, bias = torch.randn(8, 4, generator=gen), torch.randn(4, generator=gen)
    return [(torch.randn(rows, 8, generator=gen), weight, bias) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    print(torch.compile(head, fullgraph=True, backend="aot_eager")(torch.randn(3, 8), torch.randn(8, 4), torch.randn(4)))

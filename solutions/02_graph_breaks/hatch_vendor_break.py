# /// exercise
# format_version = 1
# title = "Compile through vendor code that breaks the graph"
# syllabus = ["2.1.2"]
# entry = "block"
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["compiles", "hatch"]
# hints = [
#   "Run the file: fullgraph=True stops inside vendor_softclip, at its torch._dynamo.graph_break().",
#   "The break is in code you must not edit. But vendor_softclip is pure: tensors in, a tensor out, no side effects, nothing read from outside. A pure function can go behind an escape hatch.",
#   "Strategy 2 (lesson section 2.1.2): torch._dynamo.nonstrict_trace tells Dynamo not to trace the function itself; it becomes one call in the graph, and AOTAutograd traces through it later, ignoring the graph_break().",
#   "Change only the call site in block: `h = torch._dynamo.nonstrict_trace(vendor_softclip)(h, 2.0)`.",
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
# ops = ["aten.div", "aten.tanh"]
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
    # BEGIN SOLUTION
    h = torch._dynamo.nonstrict_trace(vendor_softclip)(h, 2.0)
    # END SOLUTION
    # BEGIN STARTER
    # h = vendor_softclip(h, 2.0)  # TODO: this call breaks the graph; you may not edit vendor_softclip
    # END STARTER
    return torch.relu(h) + h.mean()


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(16, 16, generator=gen)
    return [(3 * torch.randn(4, 16, generator=gen), weight) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    print(compiled(torch.randn(4, 16), torch.randn(16, 16)))

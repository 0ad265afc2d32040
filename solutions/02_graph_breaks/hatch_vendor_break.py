# /// exercise
# format_version = 1
# title = "Compile through vendor code that breaks the graph"
# syllabus = ["2.1.2"]
# entry = "block"
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["compiles", "hatch"]
# hints = [
#   "Run the file and read the whole error: the break is a torch._dynamo.graph_break() inside vendor_softclip, but the user stack (most recent call last) shows how block got there. Which line of block starts the chain?",
#   "None of the vendor's functions may change. But vendor_gate is pure: tensors in, a tensor out, no side effects, nothing read from outside its arguments. A pure function can go behind an escape hatch as a whole, whatever is inside it.",
#   "Strategy 2 (lesson section 2.1.2): torch._dynamo.nonstrict_trace tells Dynamo not to trace the function itself; it becomes one call in the graph, and AOTAutograd traces through it later, where the graph_break() does nothing. Put the hatch around the call that block makes, so that the gate stays.",
#   "In block: `h = torch._dynamo.nonstrict_trace(vendor_gate)(h)`.",
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
#
# [[requirements]]
# id = "one_graph"
# text = "`block` compiles with `fullgraph=True` into one graph that serves every call."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "vendor_traced"
# text = "The vendor's code stays as it is, and its work (the `div` and `tanh` of `vendor_softclip`) is traced into the graph through `torch._dynamo.nonstrict_trace`."
# checks = ["hatch"]
#
# [[requirements]]
# id = "same_results"
# text = "`block` returns what it returns now, the vendor's gate included."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "hatched_alias"
# why = "the hatch made once at import, as a module-level name block calls"
#
# [[fair]]
# name = "rebind_inner"
# why = "the hatch around the innermost pure function only: the vendor's name rebound at import, so vendor_gate (traced by Dynamo) calls the hatched softclip"
#
# [[wrong]]
# name = "nested_hatch"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "nonstrict_trace"
#
# [[wrong]]
# name = "rewritten"
# breaks = "vendor_traced"
# fails = ["hatch"]
# message = "no nonstrict_trace call"
#
# [[wrong]]
# name = "in_graph_opaque"
# breaks = "vendor_traced"
# fails = ["hatch"]
# message = "single opaque nodes.*allow_in_graph"
#
# [[wrong]]
# name = "gate_lost"
# breaks = "same_results"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "disabled_gate"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Compile `block` into one graph without editing the vendor's code.

`block` calls `vendor_gate`, from a library you do not own. Somewhere in the vendor's code there
is a `torch._dynamo.graph_break()`, so `block` does not compile with `fullgraph=True`. The grader
compiles `block` with `fullgraph=True` and the `aot_eager` backend.
"""

import torch


# --- vendor code: not yours to edit ------------------------------------------------------------
def vendor_softclip(x, limit):
    """Squash values smoothly into (-limit, limit)."""
    y = torch.tanh(x / limit)
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    return y * limit


def vendor_gate(x, limit=2.0):
    """The vendor's gated activation: a soft clip, scaled by a sigmoid gate."""
    return vendor_softclip(x, limit) * torch.sigmoid(x)
# --- end of vendor code ------------------------------------------------------------------------


# BEGIN FAIR hatched_alias
# gate = torch._dynamo.nonstrict_trace(vendor_gate)
# END FAIR
# BEGIN FAIR rebind_inner
# vendor_softclip = torch._dynamo.nonstrict_trace(vendor_softclip)
# END FAIR
# BEGIN WRONG in_graph_opaque
# gate = torch.compiler.allow_in_graph(vendor_gate)
# END WRONG


def block(x, weight):
    # BEGIN SOLUTION
    h = x @ weight
    h = torch._dynamo.nonstrict_trace(vendor_gate)(h)
    return torch.relu(h) + h.mean()
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make block compile with fullgraph=True; the vendor code above is not yours to edit.
    # h = x @ weight
    # h = vendor_gate(h)
    # return torch.relu(h) + h.mean()
    # END STARTER
    # BEGIN FAIR hatched_alias
    # h = gate(x @ weight)
    # return torch.relu(h) + h.mean()
    # END FAIR
    # BEGIN FAIR rebind_inner
    # h = vendor_gate(x @ weight)
    # return torch.relu(h) + h.mean()
    # END FAIR
    # BEGIN WRONG nested_hatch
    # @torch._dynamo.nonstrict_trace
    # def gated(h):
    #     return vendor_gate(h)
    #
    # h = gated(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG rewritten
    # h = x @ weight
    # h = torch.tanh(h / 2.0) * 2.0 * torch.sigmoid(h)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG in_graph_opaque
    # h = gate(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG gate_lost
    # h = x @ weight
    # h = torch._dynamo.nonstrict_trace(vendor_softclip)(h, 2.0)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG disabled_gate
    # h = torch.compiler.disable(vendor_gate)(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Activations large enough that the clip and the gate both matter; the number of rows is drawn
    per seed and stays the same within a grading."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    weight = torch.randn(16, 16, generator=gen)
    return [(3 * torch.randn(rows, 16, generator=gen), weight) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    print(compiled(torch.randn(4, 16), torch.randn(16, 16)))

# /// exercise
# format_version = 1
# title = "Compile through vendor code that breaks the graph and reads its own settings"
# syllabus = ["2.1.2"]
# entry = "block"
# driver = "serve"
# compile = { fullgraph = true, backend = "aot_eager" }
# starter_fails = ["compiles", "hatch"]
# hints = [
#   "Run the file and read the whole error: the break is a torch._dynamo.graph_break() inside vendor_softclip, but the user stack (most recent call last) shows how block got there. Which vendor functions are on the way, and what does each read besides its arguments?",
#   "Lesson section 2.1.2: an escape hatch is for a pure function (tensors in, a tensor out, nothing else read or written). vendor_gate is not pure: it reads the vendor's setting `_limit`, which `serve` changes between calls. vendor_softclip is pure.",
#   "torch._dynamo.nonstrict_trace around vendor_gate traces it once, so the limit it read on the first call stays in the graph: later calls, with other limits, give other results. Put the hatch around the pure part only, and let Dynamo trace the part that reads the setting, so that the setting stays an input of the graph.",
#   "At the top level of your file, after the vendor code: `vendor_softclip = torch._dynamo.nonstrict_trace(vendor_softclip)`. vendor_gate looks its helper up by that name when it runs; block stays as it is.",
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
# text = "`block` returns what it returns now, the vendor's gate included, at the limit `serve` set for that call."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "inline_gate"
# why = "the vendor's gate written out in block around the hatched softclip, reading the vendor's setting in the graph"
#
# [[fair]]
# name = "pure_wrapper"
# why = "a pure wrapper of the file's own behind the hatch, softclip and sigmoid gate together, with the limit passed in as an argument"
#
# [[wrong]]
# name = "hatched_gate"
# breaks = "same_results"
# fails = ["correct"]
# message = "Call [2-9] of \\d+.*differs from the reference"
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
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "opaque graph node.*allow_in_graph"
#
# [[wrong]]
# name = "gate_lost"
# breaks = "same_results"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "default_limit"
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
is a `torch._dynamo.graph_break()`, so `block` does not compile with `fullgraph=True`. The
serving loop, `serve`, sets the vendor's clip limit before each call (`vendor_set_limit`), and the
limit changes from call to call. The grader compiles `block` with `fullgraph=True` and the
`aot_eager` backend and calls `serve` with it; `serve` is the serving team's: leave it as it is.
"""

import torch


# --- vendor code: not yours to edit ------------------------------------------------------------
_limit = torch.tensor(2.0)  # the clip limit of vendor_gate, set with vendor_set_limit


def vendor_set_limit(limit):
    global _limit
    _limit = torch.tensor(float(limit))


def vendor_softclip(x, limit):
    """Squash values smoothly into (-limit, limit)."""
    y = torch.tanh(x / limit)
    torch._dynamo.graph_break()  # the vendor's workaround for an old compiler bug
    return y * limit


def vendor_gate(x):
    """The vendor's gated activation: a soft clip at the configured limit, scaled by a sigmoid gate."""
    return vendor_softclip(x, _limit) * torch.sigmoid(x)
# --- end of vendor code ------------------------------------------------------------------------


# BEGIN SOLUTION
vendor_softclip = torch._dynamo.nonstrict_trace(vendor_softclip)
# END SOLUTION
# BEGIN FAIR inline_gate
# softclip = torch._dynamo.nonstrict_trace(vendor_softclip)
# END FAIR
# BEGIN FAIR pure_wrapper
# @torch._dynamo.nonstrict_trace
# def gate_at(h, limit):
#     return vendor_softclip(h, limit) * torch.sigmoid(h)
# END FAIR
# BEGIN WRONG hatched_gate
# gate = torch._dynamo.nonstrict_trace(vendor_gate)
# END WRONG
# BEGIN WRONG in_graph_opaque
# gate = torch.compiler.allow_in_graph(vendor_gate)
# END WRONG
# BEGIN WRONG gate_lost
# softclip = torch._dynamo.nonstrict_trace(vendor_softclip)
# END WRONG
# BEGIN WRONG default_limit
# softclip = torch._dynamo.nonstrict_trace(vendor_softclip)
# END WRONG


def block(x, weight):
    # BEGIN SOLUTION
    h = x @ weight
    h = vendor_gate(h)
    return torch.relu(h) + h.mean()
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make block compile with fullgraph=True; the vendor code above is not yours to edit.
    # h = x @ weight
    # h = vendor_gate(h)
    # return torch.relu(h) + h.mean()
    # END STARTER
    # BEGIN FAIR inline_gate
    # h = x @ weight
    # h = softclip(h, _limit) * torch.sigmoid(h)
    # return torch.relu(h) + h.mean()
    # END FAIR
    # BEGIN FAIR pure_wrapper
    # h = gate_at(x @ weight, _limit)
    # return torch.relu(h) + h.mean()
    # END FAIR
    # BEGIN WRONG hatched_gate
    # h = gate(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG
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
    # h = torch.tanh(h / _limit) * _limit * torch.sigmoid(h)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG in_graph_opaque
    # h = gate(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG gate_lost
    # h = softclip(x @ weight, _limit)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG default_limit
    # h = x @ weight
    # h = softclip(h, 2.0) * torch.sigmoid(h)
    # return torch.relu(h) + h.mean()
    # END WRONG
    # BEGIN WRONG disabled_gate
    # h = torch.compiler.disable(vendor_gate)(x @ weight)
    # return torch.relu(h) + h.mean()
    # END WRONG


def serve(block_fn, x, weight, limit):
    """The serving loop's step: the vendor's limit for this request, then the block."""
    vendor_set_limit(limit)
    return block_fn(x, weight)


# BEGIN GRADER
def calls(gen):
    """Activations large enough that the clip and the gate both matter, and a limit per call drawn
    from the grading's seed, each different from the first (a limit baked in on the first call
    fails every later one); the number of rows is drawn per seed and stays the same within a
    grading."""
    rows = int(torch.randint(1, 9, (1,), generator=gen))
    weight = torch.randn(16, 16, generator=gen)
    limits = (1.0 + 3.0 * torch.rand(4, generator=gen)).tolist()
    limits = [limits[0]] + [limit + 0.5 if abs(limit - limits[0]) < 0.5 else limit for limit in limits[1:]]
    return [(3 * torch.randn(rows, 16, generator=gen), weight, limit) for limit in limits]
# END GRADER


if __name__ == "__main__":
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    for limit in (2.0, 3.0):
        print(f"limit {limit}:", serve(compiled, torch.randn(2, 16), torch.randn(16, 16), limit))

# /// attack
# exercise = "hatch_vendor_break"
# kind = "escape_hatch"
# why = "the whole vendor call behind nonstrict_trace, bound once at module level, its limit passed explicitly"
# ///
_gate_outside_the_graph = torch._dynamo.nonstrict_trace(vendor_gate)


def block(x, weight):
    h = _gate_outside_the_graph(x @ weight, 2.0)
    return torch.relu(h) + h.mean()

# /// attack
# exercise = "hatch_vendor_break"
# kind = "escape_hatch"
# why = "only the pure vendor function behind nonstrict_trace, through a wrapper of its own bound once at module level; the impure gate's reading of the limit stays in the graph, written out"
# ///
@torch._dynamo.nonstrict_trace
def _softclip_outside_the_graph(h, limit):
    return vendor_softclip(h, limit)


def block(x, weight):
    h = x @ weight
    h = _softclip_outside_the_graph(h, _limit) * torch.sigmoid(h)
    return torch.relu(h) + h.mean()

# /// attack
# exercise = "hatch_vendor_break"
# kind = "escape_hatch"
# why = "nonstrict_trace as a decorator on a wrapper"
# ///
@torch._dynamo.nonstrict_trace
def _softclip(h):
    return vendor_softclip(h, 2.0)


def block(x, weight):
    h = x @ weight
    h = _softclip(h)
    return torch.relu(h) + h.mean()

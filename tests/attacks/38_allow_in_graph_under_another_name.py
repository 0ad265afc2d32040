# /// attack
# exercise = "hatch_vendor_break"
# class = 8
# kind = "escape_hatch"
# why = "put the vendor function in the graph as one opaque call, under an alias"
# cold = true
# ///
from torch._dynamo import allow_in_graph as keep_whole

_softclip = keep_whole(vendor_softclip)


def block(x, weight):
    h = x @ weight
    h = _softclip(h, 2.0)
    return torch.relu(h) + h.mean()

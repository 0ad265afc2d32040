# /// attack
# exercise = "strict_vendor_break"
# class = 8
# kind = "probe_variant"
# why = "call the helper through a name bound at import, so that the grader's swapped-in variant never runs"
# ///
_mix = mix


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vendor = VendorBlock()
        self.weight = torch.nn.Parameter(torch.randn(16, 16) / 4)

    def forward(self, x):
        h = _mix(x, self.weight)
        h = self.vendor(h)
        return _mix(h, self.weight)

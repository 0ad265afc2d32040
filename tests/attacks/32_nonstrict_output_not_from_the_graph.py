# /// attack
# exercise = "pure_global_offset"
# class = 8
# kind = "nonstrict"
# why = "compute the output without the traced helper, so the replayed graph is never used"
# waits_for = "trust"
# ///
def predict(x):
    return torch.sigmoid((x - CALIBRATION) * 2.0)

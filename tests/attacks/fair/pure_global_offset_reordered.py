# /// attack
# exercise = "pure_global_offset"
# kind = "nonstrict"
# why = "the zero point passed in, the arithmetic rearranged"
# ///
def calibrate(x, zero_point):
    return 2.0 * x - 2.0 * zero_point


def predict(x):
    return torch.sigmoid(calibrate(x, CALIBRATION))

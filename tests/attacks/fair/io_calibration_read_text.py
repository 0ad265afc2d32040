# /// attack
# exercise = "io_calibration"
# kind = "correct"
# why = "read the file with open() and json.loads, pass tensors in"
# ///
def run(step, x, path):
    with open(path, encoding="utf-8") as handle:
        stats = json.loads(handle.read())
    return step(x, torch.as_tensor(stats["scale"]), torch.as_tensor(stats["shift"]))


def calibrate(x, scale, shift):
    centered = x - x.mean(dim=0)
    return centered * scale + shift

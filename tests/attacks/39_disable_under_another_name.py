# /// attack
# exercise = "io_calibration"
# class = 8
# kind = "no_dodge"
# why = "run the whole function eagerly with torch.compiler.disable under an alias"
# ///
from torch.compiler import disable as run_eagerly

calibrate = run_eagerly(calibrate)

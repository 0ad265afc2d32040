# /// attack
# exercise = "recompile_float_knob"
# kind = "compile_time"
# why = "torch.as_tensor instead of torch.tensor, timed"
# costly = true
# ///
def run(fn, x, temperature):
    return fn(x, torch.as_tensor(temperature, dtype=x.dtype))

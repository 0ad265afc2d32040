# /// attack
# exercise = "recompile_float_knob"
# class = 8
# kind = "compile_time"
# why = "the driver ignores the compiled function: no recompile, correct results, zero compile time"
# costly = true
# waits_for = "trust"
# ///
def run(fn, x, temperature):
    return score(x, temperature)

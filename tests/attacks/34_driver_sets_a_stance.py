# /// attack
# exercise = "recompile_float_knob"
# class = 8
# kind = "compile_time"
# why = "the driver runs the compiled function under force_eager and restores the stance"
# costly = true
# waits_for = "trust"
# ///
def run(fn, x, temperature):
    with torch.compiler.set_stance("force_eager"):
        return fn(x, temperature)

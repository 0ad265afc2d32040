# /// attack
# exercise = "rerank_cold_start"
# class = 8
# kind = "compile_time"
# why = "the driver ignores the compiled model and calls the module inside it: no recompile, correct results, zero compile time"
# costly = true
# waits_for = "trust"
# ///
def run(model, x, temperature):
    return model._orig_mod(x, temperature)

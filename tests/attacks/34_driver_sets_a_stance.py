# /// attack
# exercise = "rerank_cold_start"
# class = 8
# kind = "compile_time"
# why = "the driver runs the compiled model under force_eager and restores the stance"
# costly = true
# waits_for = "trust"
# ///
def run(model, x, temperature):
    with torch.compiler.set_stance("force_eager"):
        return model(x, temperature)

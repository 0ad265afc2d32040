# /// attack
# exercise = "dynamic_batches"
# class = 8
# kind = "compiled_calls"
# why = "fall back to eager after the first graph with a stance set at import"
# ///
torch.compiler.set_stance("eager_on_recompile")

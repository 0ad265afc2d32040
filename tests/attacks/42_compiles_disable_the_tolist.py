# /// attack
# exercise = "trace_tolist"
# class = 8
# kind = "compiles"
# why = "leave the .tolist() code in, run eagerly by torch.compiler.disable"
# ///
weighted_row_means = torch.compiler.disable(weighted_row_means)

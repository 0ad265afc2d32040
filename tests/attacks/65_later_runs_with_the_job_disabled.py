# /// attack
# exercise = "nightly_rerun"
# class = 8
# kind = "later_run"
# why = "wrap score in torch.compiler.disable, so that no run would compile anything and a graph ceiling per later run would hold by compiling nothing"
# ///
score = torch.compiler.disable(score)

# /// attack
# exercise = "skip_eval_serving"
# class = 8
# kind = "stance_calls"
# why = "set the unsafe stance for the whole process at import (the child measures with it still set, and crashes)"
# waits_for = "trust"
# ///
torch.compiler.set_stance("skip_guard_eval_unsafe")

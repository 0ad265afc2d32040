# /// attack
# exercise = "guards_predict"
# kind = "answers"
# why = "the measured answers, written as a learner would"
# ///
WILL_RECOMPILE = dict(new_values=False, float64=True, new_factor=True, transposed=True, bigger_batch=True, no_grad=True)
FAILING_GUARD = dict(new_values=None, float64="dtype", new_factor="value", transposed="stride", bigger_batch="size",
                     no_grad="global_state")

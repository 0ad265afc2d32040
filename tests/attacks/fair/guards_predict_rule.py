# /// attack
# exercise = "guards_predict"
# kind = "answers"
# why = "the rule as a chain of comparisons (the reference walks a table)"
# ///
def failing_guard(first, second):
    if second["dtype"] != first["dtype"]:
        return "dtype"
    if second["shape"] != first["shape"]:
        return "size"
    if second["transposed"] != first["transposed"]:
        return "stride"
    if second["factor"] != first["factor"]:
        return "value"
    if second["grad"] != first["grad"]:
        return "global_state"
    return None


FAILING_GUARD = {name: failing_guard(FIRST, {**FIRST, **change}) for name, change in SECOND_CALLS.items()}

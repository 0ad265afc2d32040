# /// attack
# exercise = "filter_nn_guards"
# class = 8
# kind = "guard_time"
# why = "drop every guard with the guard filter: the cache lookup is fast and the code is unsafe"
# costly = true
# ///
COMPILE_OPTIONS = {"guard_filter_fn": lambda entries: [False for _ in entries]}

# /// attack
# exercise = "trace_tolist"
# class = 9
# kind = "compiles"
# why = "a notebook with bytes that are not UTF-8"
# base = "none"
# form = "notebook-latin1"
# ///


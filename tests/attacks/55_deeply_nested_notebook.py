# /// attack
# exercise = "trace_tolist"
# class = 9
# kind = "compiles"
# why = "a notebook whose JSON nests 100000 levels (RecursionError in json.loads)"
# base = "none"
# form = "notebook-deep"
# cold = true
# ///


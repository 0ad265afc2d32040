# /// attack
# exercise = "trace_tolist"
# class = 7
# kind = "correct"
# why = "the submission is a symbolic link to the reference solution"
# base = "none"
# form = "symlink-master"
# cold = true
# ///


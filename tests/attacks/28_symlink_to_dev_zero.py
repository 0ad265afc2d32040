# /// attack
# exercise = "trace_tolist"
# class = 7
# kind = "compiles"
# why = "the submission is a symbolic link to /dev/zero (an endless read)"
# base = "none"
# form = "symlink-devzero"
# ///


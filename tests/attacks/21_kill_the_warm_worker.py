# /// attack
# exercise = "breaks_checkpoint"
# class = 5
# kind = "compiles"
# why = "kill the parent (the warm worker) so that the next grading gets no verdict"
# ///
import os

os.kill(os.getppid(), 9)

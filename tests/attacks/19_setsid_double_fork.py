# /// attack
# exercise = "breaks_checkpoint"
# class = 5
# kind = "compiles"
# why = "leave a daemon behind: fork, setsid, fork again, sleep"
# cold = true
# ///
import os

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "600", "autograder-attack-19"])
    os._exit(0)

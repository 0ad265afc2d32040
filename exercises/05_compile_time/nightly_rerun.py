# Exercise nightly_rerun: Let every later run of a nightly job start without the recompile its first run paid
# Edit this file, then check it with:  ./course check nightly_rerun
# Stuck? ./course hint nightly_rerun   Start over: ./course reset nightly_rerun
"""Make the later runs of a nightly evaluation job skip the recompile that every run pays today.

Every night a scheduler starts the job in a new process, on a machine whose compile-cache folder
persists from one night to the next. The job compiles `score` and calls it on a batch of
candidates for each of several sampling temperatures, Python floats that the scheduler passes and
you cannot change. In every run, the second temperature compiles `score` again; the grader runs
the job several times, each time as a new process would, and counts what each run compiles. It
imports your file into a process that has imported torch already, so an environment variable that
torch reads when it is imported (`TORCH_LOGS`, say) comes too late when your file sets it: use the
setting it stands for, in code.

What the grader checks:
- Every later run of the job, started as a new process with the compile-cache folder the runs before it left, compiles `score` once: no recompile when the temperature changes.
- `score` returns what it returns now, for every temperature.
"""

import torch


DEPTH, WIDTH = 4, 32
WEIGHTS = [torch.randn(WIDTH, WIDTH) / 6 for _ in range(DEPTH)]

# TODO: every run of the job relearns what the run before it learned.


def score(x, temperature):
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    return torch.softmax(x / temperature, dim=-1)


if __name__ == "__main__":
    from autograder.lab import job_reruns

    nights = job_reruns(__file__, "score", [(torch.randn(4, WIDTH), t) for t in (0.5, 0.9, 1.7)])
    for night, (graphs, reason) in enumerate(zip(nights["graphs"], nights["reasons"]), 1):
        print(f"run {night}: {graphs} graph(s) compiled" + (f"; recompiled because {reason}" if reason else ""))

# /// exercise
# format_version = 1
# title = "Let every later run of a nightly job start without the recompile its first run paid"
# syllabus = ["5.6", "5.1"]
# entry = "score"
# starter_fails = ["later_run"]
# # The fix is a setting of torch.compiler.config (the job's id), not of torch._dynamo.config.
# scan_allow = ["write:torch.compiler.config.job_id"]
# hints = [
#   "Run the file: it runs the job twice, each time as a new process would (Dynamo reset, the file's setup done again), and prints the graphs each run compiled and why the second graph was compiled. Both runs pay the same recompile.",
#   "The recompile is Dynamo learning, at the second temperature, that the float changes from call to call (lesson section 5.1). Every new process learns it again, unless what was learned is kept on disk and read back by the next run.",
#   "Profile-guided recompilation (lesson section 5.6) stores what automatic dynamic learned in the compile-cache folder, but only for a job it can recognise from one run to the next: give the job a name of yours that stays the same across runs.",
#   "At the top of the file: torch.compiler.config.job_id = \"nightly-eval\" (any name that is the same in every run).",
# ]
#
# [[checks]]
# kind = "later_run"
# max = 1
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[requirements]]
# id = "later_runs_compile_once"
# text = "Every later run of the job, started as a new process with the compile-cache folder the runs before it left, compiles `score` once: no recompile when the temperature changes."
# checks = ["later_run"]
#
# [[requirements]]
# id = "same_scores"
# text = "`score` returns what it returns now, for every temperature."
# checks = ["correct"]
#
# [[fair]]
# name = "job_id_from_environment"
# why = "the job id read from the scheduler's environment, with a fixed name as the default"
#
# [[fair]]
# name = "job_id_from_workload"
# why = "a job id built from the workload's own constants (depth and width) instead of a literal"
#
# [[wrong]]
# name = "tensor_inside"
# breaks = "later_runs_compile_once"
# fails = ["later_run"]
# message = "run 2: 2\\).*temperature"
#
# [[wrong]]
# name = "fresh_job_id"
# breaks = "later_runs_compile_once"
# fails = ["later_run"]
# message = "run 2: 2\\)"
#
# [[wrong]]
# name = "dated_job_id"
# breaks = "later_runs_compile_once"
# fails = ["later_run"]
# message = "run 2: 2\\)"
#
# [[wrong]]
# name = "job_id_from_process"
# breaks = "later_runs_compile_once"
# fails = ["later_run"]
# message = "run 2: 2\\)"
#
# [[wrong]]
# name = "job_id_drawn_at_random"
# breaks = "later_runs_compile_once"
# fails = ["later_run"]
# message = "run 2: 2\\)"
#
# [[wrong]]
# name = "rounded_temperature"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Make the later runs of a nightly evaluation job skip the recompile that every run pays today.

Every night a scheduler starts the job in a new process, on a machine whose compile-cache folder
persists from one night to the next. The job compiles `score` and calls it on a batch of
candidates for each of several sampling temperatures, Python floats that the scheduler passes and
you cannot change. In every run, the second temperature compiles `score` again; the grader runs
the job several times, each time as a new process would, and counts what each run compiles. It
imports your file into a process that has imported torch already, so an environment variable that
torch reads when it is imported (`TORCH_LOGS`, say) comes too late when your file sets it: use the
setting it stands for, in code.
"""

import torch


DEPTH, WIDTH = 4, 32
WEIGHTS = [torch.randn(WIDTH, WIDTH) / 6 for _ in range(DEPTH)]

# BEGIN SOLUTION
torch.compiler.config.job_id = "nightly-eval"
# END SOLUTION
# BEGIN STARTER
# # TODO: every run of the job relearns what the run before it learned.
# END STARTER
# BEGIN FAIR job_id_from_environment
# import os
#
# torch.compiler.config.job_id = os.environ.get("NIGHTLY_JOB_NAME", "nightly-eval")
# END FAIR
# BEGIN FAIR job_id_from_workload
# torch.compiler.config.job_id = f"score-{DEPTH}x{WIDTH}"
# END FAIR
# BEGIN WRONG fresh_job_id
# import time
#
# torch.compiler.config.job_id = f"nightly-eval-{time.time_ns()}"  # one id per run
# END WRONG
# BEGIN WRONG dated_job_id
# import time
#
# torch.compiler.config.job_id = "nightly-eval-" + time.strftime("%Y-%m-%d")  # tonight's run
# END WRONG
# BEGIN WRONG job_id_from_process
# import os
#
# torch.compiler.config.job_id = f"nightly-eval-{os.getpid()}"  # the same in one process, new in the next
# END WRONG
# BEGIN WRONG job_id_drawn_at_random
# import random
#
# torch.compiler.config.job_id = f"nightly-eval-{random.getrandbits(48):x}"
# END WRONG
# BEGIN WRONG tensor_inside
# # no job id: each run starts without a profile
# END WRONG


def score(x, temperature):
    # BEGIN WRONG tensor_inside
    # temperature = torch.tensor(temperature)
    # END WRONG
    # BEGIN WRONG rounded_temperature
    # temperature = round(temperature, 1)
    # END WRONG
    for w in WEIGHTS:
        x = torch.tanh(x @ w) + x
    return torch.softmax(x / temperature, dim=-1)


# BEGIN GRADER
def calls(gen):
    """Three to five temperatures between 0.3 and 3 (drawn per seed), one batch each."""
    count = int(torch.randint(3, 6, (1,), generator=gen))
    temperatures = (0.3 + 2.7 * torch.rand(count, generator=gen)).tolist()
    return [(torch.randn(4, WIDTH, generator=gen), t) for t in temperatures]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import job_reruns

    nights = job_reruns(__file__, "score", [(torch.randn(4, WIDTH), t) for t in (0.5, 0.9, 1.7)])
    for night, (graphs, reason) in enumerate(zip(nights["graphs"], nights["reasons"]), 1):
        print(f"run {night}: {graphs} graph(s) compiled" + (f"; recompiled because {reason}" if reason else ""))

# /// exercise
# format_version = 1
# title = "Predict which functions Dynamo skips"
# syllabus = ["2.5.5.5", "2.5.5.1", "2.5.5.2", "2.5.5.3", "2.5.5.4"]
# section = "2.5.5"
# entry = "predict_outcome"
# starter_fails = ["outcomes"]
# hints = [
#   "Each experiment compiles one function of this file with dynamic=False and calls it once on each of `sizes` inputs of different lengths. The answer is the number of graphs compiled in all, or \"error\" when a call raises. A function Dynamo skips entirely compiles 0 graphs and raises nothing.",
#   "Dynamo cannot resume after a break inside a loop, inside the `with` block of a user context manager, or inside a `try` block: it skips the whole frame, for every later call too (lesson sections 2.5.5.1 to 2.5.5.3). torch.no_grad() is a context manager it knows how to split, and a break after the loop or after the try is resumed. A resumed break costs two graphs per input length: the part before the break and the part after it.",
#   "dynamic=False compiles one graph per input length, up to the recompile limit (8 entries for each code object, and the part after a break has its own 8). Past it the function runs eagerly, or, with fullgraph=True, the call raises (lesson section 2.5.5.4). fullgraph=True also makes any break an error.",
#   "A backend that crashes is a hard error, not a skip (lesson section 2.5.5.5), but only once it is handed a graph: a frame Dynamo skips never reaches the backend.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "outcomes"
# constant = "OUTCOMES"
# constant_truth = "measured_outcomes"
# variants = "draw_experiments"
# function = "predict_outcome"
# truth = "experiment_truth"
# points = 4
#
# [[requirements]]
# id = "skip_rule"
# text = "For any function of this file, any number of input lengths from 1 to 12, either `fullgraph` setting and with or without the crashing backend, `predict_outcome` returns the number of graphs compiled in all, or \"error\" when a call raises. It answers from the parameters alone, by a rule: it neither compiles nor runs the experiment."
# checks = ["outcomes"]
#
# [[fair]]
# name = "per_call"
# why = "walks the calls one by one, counting the cache entries of the function's code"
#
# [[fair]]
# name = "kinds_table"
# why = "a table of what each function's break does, then one formula"
#
# [[wrong]]
# name = "skipped_under_fullgraph"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "returned .*the grader measured|not what the grader measured"
#
# [[wrong]]
# name = "no_limit_on_breaks"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "returned .*the grader measured|not what the grader measured"
#
# [[wrong]]
# name = "every_break_resumes"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*in_loop|returned .*the grader measured"
#
# [[wrong]]
# name = "no_grad_skips"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*in_no_grad|returned .*the grader measured"
#
# [[wrong]]
# name = "no_limit"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*ten_sizes|returned .*the grader measured"
#
# [[wrong]]
# name = "fullgraph_limit_runs_eagerly"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*ten_sizes_fullgraph|returned .*the grader measured"
#
# [[wrong]]
# name = "crash_always_raises"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*crash_skipped|returned .*the grader measured"
#
# [[wrong]]
# name = "one_graph_per_length"
# breaks = "skip_rule"
# fails = ["outcomes"]
# message = "not what the grader measured: .*after_try|returned .*the grader measured"
# ///
"""Predict, for each experiment, how many graphs Dynamo compiles, or whether a call raises.

An experiment compiles one function of this file (`function`, its name) with dynamic=False and
with `fullgraph` as given, and calls it `sizes` times, each time on an input of another length
(2, 3, ...). With `crashing_backend`, the backend is `crashing_backend` below instead of the
course's counting one. Write the rule as `predict_outcome(...)`: the number of graphs compiled in
all (0 when Dynamo skips the function entirely), or "error" when a call raises. `EXAMPLES` holds
a few experiments; the grader calls `predict_outcome` on experiments of its own and compares with
what really happens.
"""

import torch


class region:
    """A user-defined context manager that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def in_loop(x):
    for _ in range(3):
        x = x * 2
        torch._dynamo.graph_break()
    return x + 1


def after_loop(x):
    for _ in range(3):
        x = x * 2
    torch._dynamo.graph_break()
    return x + 1


def in_region(x):
    x = x * 2
    with region():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 3
    return x - 1


def in_no_grad(x):
    x = x * 2
    with torch.no_grad():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 3
    return x - 1


def in_try(x):
    x = x * 2
    try:
        x = x + 1
        torch._dynamo.graph_break()
    except ValueError:
        x = x - 1
    return x * 3


def after_try(x):
    x = x * 2
    try:
        x = x + 1
    except ValueError:
        x = x - 1
    torch._dynamo.graph_break()
    return x * 3


def shift(x):
    return x + 1


def crashing_backend(gm, example_inputs):
    raise RuntimeError("this backend always fails")


FUNCTIONS = ["in_loop", "after_loop", "in_region", "in_no_grad", "in_try", "after_try", "shift"]


def predict_outcome(function, sizes, fullgraph, crashing_backend):
    """The number of graphs compiled in all when `function` (a name in FUNCTIONS) is compiled and
    called on `sizes` input lengths, or "error" when a call raises."""
    # BEGIN SOLUTION
    if function != "shift" and fullgraph:
        return "error"  # every other function holds a break
    if function in ("in_loop", "in_region", "in_try"):
        return 0  # the break cannot be resumed: the frame is skipped, no graph reaches the backend
    if crashing_backend:
        return "error"
    if fullgraph and sizes > 8:
        return "error"  # the ninth length meets the recompile limit
    graphs_per_length = 1 if function == "shift" else 2  # before and after a resumed break
    return graphs_per_length * min(sizes, 8)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: replace this guess with the rule.
    # return "error" if fullgraph or crashing_backend else sizes
    # END STARTER
    # BEGIN FAIR per_call
    # if fullgraph and function != "shift":
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0
    # parts = 1 if function == "shift" else 2
    # graphs = 0
    # for call in range(sizes):
    #     if call >= 8:  # the cache of each code object is full
    #         if fullgraph:
    #             return "error"
    #         break  # this call and every later one run eagerly
    #     if crashing_backend:
    #         return "error"
    #     graphs += parts
    # return graphs
    # END FAIR
    # BEGIN FAIR kinds_table
    # kind = {"in_loop": "skip", "in_region": "skip", "in_try": "skip", "after_loop": "resume",
    #         "in_no_grad": "resume", "after_try": "resume", "shift": "no break"}[function]
    # if kind != "no break" and fullgraph:
    #     return "error"
    # if kind == "skip":
    #     return 0
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return (2 if kind == "resume" else 1) * min(sizes, 8)
    # END FAIR
    # BEGIN WRONG skipped_under_fullgraph
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0  # skipped, whatever fullgraph says
    # if function in ("after_loop", "in_no_grad", "after_try"):
    #     return "error" if fullgraph or crashing_backend else 2 * min(sizes, 8)
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return min(sizes, 8)
    # END WRONG
    # BEGIN WRONG no_limit_on_breaks
    # if function in ("in_loop", "in_region", "in_try"):
    #     return "error" if fullgraph else 0
    # if function in ("after_loop", "in_no_grad", "after_try"):
    #     return "error" if fullgraph or crashing_backend else 2 * sizes  # every length its two graphs
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return min(sizes, 8)
    # END WRONG
    # BEGIN WRONG every_break_resumes
    # if function != "shift" and fullgraph:
    #     return "error"
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return (1 if function == "shift" else 2) * min(sizes, 8)
    # END WRONG
    # BEGIN WRONG no_grad_skips
    # if function != "shift" and fullgraph:
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try", "in_no_grad"):
    #     return 0
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return (1 if function == "shift" else 2) * min(sizes, 8)
    # END WRONG
    # BEGIN WRONG no_limit
    # if function != "shift" and fullgraph:
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0
    # if crashing_backend:
    #     return "error"
    # return (1 if function == "shift" else 2) * sizes
    # END WRONG
    # BEGIN WRONG fullgraph_limit_runs_eagerly
    # if function != "shift" and fullgraph:
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0
    # if crashing_backend:
    #     return "error"
    # return (1 if function == "shift" else 2) * min(sizes, 8)
    # END WRONG
    # BEGIN WRONG crash_always_raises
    # if crashing_backend or (function != "shift" and fullgraph):
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0
    # if fullgraph and sizes > 8:
    #     return "error"
    # return (1 if function == "shift" else 2) * min(sizes, 8)
    # END WRONG
    # BEGIN WRONG one_graph_per_length
    # if function != "shift" and fullgraph:
    #     return "error"
    # if function in ("in_loop", "in_region", "in_try"):
    #     return 0
    # if crashing_backend or (fullgraph and sizes > 8):
    #     return "error"
    # return min(sizes, 8)
    # END WRONG


def _experiment(function, sizes=1, fullgraph=False, crashing_backend=False):
    return {"function": function, "sizes": sizes, "fullgraph": fullgraph, "crashing_backend": crashing_backend}


EXAMPLES = {
    "in_loop": _experiment("in_loop"),
    "after_loop": _experiment("after_loop"),
    "in_region": _experiment("in_region"),
    "in_no_grad": _experiment("in_no_grad"),
    "in_try": _experiment("in_try"),
    "after_try": _experiment("after_try", sizes=3),
    "ten_sizes": _experiment("shift", sizes=10),
    "ten_sizes_fullgraph": _experiment("shift", sizes=10, fullgraph=True),
    "crashing_backend": _experiment("shift", crashing_backend=True),
    "crash_skipped": _experiment("in_try", crashing_backend=True),
}

OUTCOMES = {name: predict_outcome(**experiment) for name, experiment in EXAMPLES.items()}


# BEGIN GRADER
def _experiment_run(function, sizes, fullgraph, crashing_backend):
    """Run one experiment (as the docstring at the top says) with the course's counting backend (or the crashing one): "error" or
    the number of graphs."""
    # The counting backend runs each captured graph as it is, like backend="eager": fast, and the
    # graphs, breaks and errors are Dynamo's own, the same as with any real backend.
    from autograder.lab import tally_calls

    options = {"dynamic": False, "fullgraph": bool(fullgraph)}
    if crashing_backend:
        options["backend"] = globals()["crashing_backend"]
    inputs = [(torch.ones(length),) for length in range(2, int(sizes) + 2)]
    try:
        return tally_calls(globals()[function], inputs, **options).graphs
    except Exception:  # noqa: BLE001 - an error is one of the outcomes
        return "error"


def experiment_truth(params):
    """The truth for one drawn parameter set (the answers check's `truth`)."""
    return outcome_for(**params)


def outcome_for(function, sizes, fullgraph, crashing_backend):
    """The truth for one experiment."""
    import logging

    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)  # the recompile-limit warning says nothing the count does not
    try:
        return _experiment_run(function, sizes, fullgraph, crashing_backend)
    finally:
        dynamo_log.setLevel(level)


def measured_outcomes():
    """The truth for the examples: what the answers check compares OUTCOMES with."""
    return {name: outcome_for(**example) for name, example in EXAMPLES.items()}


def draw_experiments(gen):
    """Hidden experiments for the answers check's `variants`: eight, drawn per seed. Each grading
    holds the cases a rule must get right: a break Dynamo cannot resume from, alone, with the
    crashing backend and under fullgraph; the break inside torch.no_grad(); more lengths than the
    recompile limit for a function that breaks (`shift`, with fullgraph off and on) and for one
    that breaks otherwise; and one drawn at random."""
    def pick(options):
        return options[int(torch.randint(len(options), (1,), generator=gen))]

    def count(low, high):
        return int(torch.randint(low, high + 1, (1,), generator=gen))

    skipped = ["in_loop", "in_region", "in_try"]
    drawn = [
        _experiment(pick(skipped), sizes=count(1, 4)),
        _experiment(pick(skipped), sizes=count(1, 3), crashing_backend=True),
        _experiment(pick(skipped), sizes=count(1, 4), fullgraph=True),
        _experiment("in_no_grad", sizes=count(1, 3)),
        _experiment(pick(["after_loop", "after_try", "in_no_grad"]), sizes=count(9, 11)),
        _experiment("shift", sizes=count(9, 11)),
        _experiment("shift", sizes=count(9, 11), fullgraph=True),
        _experiment(pick(FUNCTIONS), sizes=count(1, 11), fullgraph=pick([False, True]),
                    crashing_backend=pick([False, False, False, True])),
    ]
    order = torch.randperm(len(drawn), generator=gen).tolist()
    return [drawn[i] for i in order]


def calls(gen):
    return [("shift", 1, False, False)]
# END GRADER


if __name__ == "__main__":
    for name, example in EXAMPLES.items():
        print(f"{name:>20}: {example}; you predict {OUTCOMES[name]!r}")

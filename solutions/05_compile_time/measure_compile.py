# /// exercise
# format_version = 1
# title = "Predict where the graph ops go when a print splits a pipeline"
# syllabus = ["5.5"]
# entry = "pipeline"
# starter_fails = ["metrics"]
# hints = [
#   "Run the file: it prints one compilation-metrics record per frame Dynamo compiled for the pipeline of the default depth and break position. Change DEPTH and BREAK_AT at the bottom and run it again to test your rule.",
#   "A graph break ends one frame's graph; the code after it is compiled as a new (resume) frame, recorded even when its graph is empty.",
#   "Count what each part holds: the normalisation before the encoder, and one encoder layer (a matmul, a tanh, an add); each graph holds the ops on its side of the print (lesson section 5.5).",
#   "The first frame holds the normalisation and the layers before the print, the resume frame the layers after it: frames is always 2, total is the sum of the two, largest their maximum.",
# ]
#
# [[checks]]
# kind = "answers"
# name = "metrics"
# variants = "draw_pipelines"
# truth = "metrics_for"
# function = "predict_metrics"
# points = 4
#
# [[requirements]]
# id = "metrics_rule"
# text = "For any encoder depth and any position of the print, `predict_metrics` returns how many frames Dynamo compiles, the op count of the largest graph and the ops of all graphs together."
# checks = ["metrics"]
#
# [[fair]]
# name = "frame_list"
# why = "builds the list of graphs' op counts and takes its length, maximum and sum"
#
# [[fair]]
# name = "ops_table"
# why = "counts each part's ops from a table of op names per part instead of constants"
#
# [[wrong]]
# name = "copied_answers"
# breaks = "metrics_rule"
# fails = ["metrics"]
# message = "drawn afresh on each grading"
#
# [[wrong]]
# name = "one_frame"
# breaks = "metrics_rule"
# fails = ["metrics"]
# message = "the grader measured"
#
# [[wrong]]
# name = "two_ops_per_layer"
# breaks = "metrics_rule"
# fails = ["metrics"]
# message = "the grader measured"
#
# [[wrong]]
# name = "largest_is_encoder"
# breaks = "metrics_rule"
# fails = ["metrics"]
# message = "the grader measured"
# ///
"""Predict how the graph ops of a pipeline split over the frames Dynamo compiles.

`make_pipeline(depth, break_at)` builds a pipeline that normalises its input, runs `break_at`
encoder layers, prints (a graph break), then runs the remaining `depth - break_at` layers. Run
the file: it compiles one such pipeline (backend "eager") and prints what Dynamo's compilation
metrics (the `compilation_metrics` of TORCH_TRACE) recorded for each frame. Then write the rule
as `predict_metrics(depth, break_at)`, returning a dict with `frames` (how many frames were
compiled), `largest_graph_ops` (the op count of the largest graph) and `total_graph_ops` (the ops
of all graphs together). The grader draws pipelines of its own on each grading and measures them.
"""

import torch

ENCODER = [torch.randn(16, 16) / 4 for _ in range(32)]


def make_pipeline(depth, break_at):
    def pipeline(x):
        x = (x - x.mean()) / (x.std() + 1e-5)
        for w in ENCODER[:break_at]:
            x = torch.tanh(x @ w) + x
        print("encoding")
        for w in ENCODER[break_at:depth]:
            x = torch.tanh(x @ w) + x
        return x
    return pipeline


pipeline = make_pipeline(24, 8)


def predict_metrics(depth, break_at):
    # BEGIN SOLUTION
    before = 5 + 3 * break_at  # mean, sub, std, add, div, then a matmul, a tanh and an add per layer
    after = 3 * (depth - break_at)
    return {"frames": 2, "largest_graph_ops": max(before, after), "total_graph_ops": before + after}
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: measure one pipeline, then replace these guesses with the rule.
    # return {"frames": None, "largest_graph_ops": None, "total_graph_ops": None}
    # END STARTER
    # BEGIN FAIR frame_list
    # graphs = [5, 0]
    # for layer in range(depth):
    #     graphs[0 if layer < break_at else 1] += 3
    # return {"frames": len(graphs), "largest_graph_ops": max(graphs), "total_graph_ops": sum(graphs)}
    # END FAIR
    # BEGIN FAIR ops_table
    # parts = {"normalise": ["mean", "sub", "std", "add", "div"], "layer": ["matmul", "tanh", "add"]}
    # first = len(parts["normalise"]) + break_at * len(parts["layer"])
    # resumed = (depth - break_at) * len(parts["layer"])
    # return {"frames": 2, "largest_graph_ops": max(first, resumed), "total_graph_ops": first + resumed}
    # END FAIR
    # BEGIN WRONG copied_answers
    # return {"frames": 2, "largest_graph_ops": 48, "total_graph_ops": 77}
    # END WRONG
    # BEGIN WRONG one_frame
    # total = 5 + 3 * depth
    # return {"frames": 1, "largest_graph_ops": total, "total_graph_ops": total}
    # END WRONG
    # BEGIN WRONG two_ops_per_layer
    # before, after = 5 + 2 * break_at, 2 * (depth - break_at)
    # return {"frames": 2, "largest_graph_ops": max(before, after), "total_graph_ops": before + after}
    # END WRONG
    # BEGIN WRONG largest_is_encoder
    # return {"frames": 2, "largest_graph_ops": 3 * (depth - break_at), "total_graph_ops": 5 + 3 * depth}
    # END WRONG


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 16, generator=gen),)]


def draw_pipelines(gen):
    """Six pipelines per grading: depths from 1 to 32, the print anywhere from before the first layer
    to after the last (both ends always among them)."""
    drawn = []
    for number in range(6):
        depth = int(torch.randint(1, 33, (1,), generator=gen))
        break_at = {0: 0, 1: depth}.get(number, int(torch.randint(0, depth + 1, (1,), generator=gen)))
        drawn.append({"depth": depth, "break_at": break_at})
    return drawn


def metrics_for(params):
    import contextlib
    import io

    from autograder.lab import frame_report

    with contextlib.redirect_stdout(io.StringIO()):
        records = frame_report(make_pipeline(params["depth"], params["break_at"]), [(torch.randn(4, 16),)])
    return {"frames": len(records), "largest_graph_ops": max(r["graph_ops"] for r in records),
            "total_graph_ops": sum(r["graph_ops"] for r in records)}
# END GRADER


if __name__ == "__main__":
    from autograder.lab import frame_report

    DEPTH, BREAK_AT = 24, 8
    for record in frame_report(make_pipeline(DEPTH, BREAK_AT), [(torch.randn(4, 16),)]):
        print(record)

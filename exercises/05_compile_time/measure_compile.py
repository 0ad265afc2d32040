# Exercise measure_compile: Predict where the graph ops go when a print splits a pipeline
# Edit this file, then check it with:  ./course check measure_compile
# Stuck? ./course hint measure_compile   Start over: ./course reset measure_compile
"""Predict how the graph ops of a pipeline split over the frames Dynamo compiles.

`make_pipeline(depth, break_at)` builds a pipeline that normalises its input, runs `break_at`
encoder layers, prints (a graph break), then runs the remaining `depth - break_at` layers. Run
the file: it compiles one such pipeline (backend "eager") and prints what Dynamo's compilation
metrics (the `compilation_metrics` of TORCH_TRACE) recorded for each frame. Then write the rule
as `predict_metrics(depth, break_at)`, returning a dict with `frames` (how many frames were
compiled), `largest_graph_ops` (the op count of the largest graph) and `total_graph_ops` (the ops
of all graphs together). The grader draws pipelines of its own on each grading and measures them.

What the grader checks:
- For any encoder depth and any position of the print, `predict_metrics` returns how many frames Dynamo compiles, the op count of the largest graph and the ops of all graphs together.
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
    # TODO: measure one pipeline, then replace these guesses with the rule.
    return {"frames": None, "largest_graph_ops": None, "total_graph_ops": None}


if __name__ == "__main__":
    from autograder.lab import frame_report

    DEPTH, BREAK_AT = 24, 8
    for record in frame_report(make_pipeline(DEPTH, BREAK_AT), [(torch.randn(4, 16),)]):
        print(record)

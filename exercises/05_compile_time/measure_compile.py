# Exercise measure_compile: Read the compilation metrics: where does compile time go?
# Edit this file, then check it with:  ./course check measure_compile
# Stuck? ./course hint measure_compile   Start over: ./course reset measure_compile
"""Measure how compile time splits over the frames of `pipeline`.

`pipeline` prepares its input, prints (a graph break), then runs a 24-layer encoder. Run the
file: it compiles `pipeline` once (backend "eager") and prints what Dynamo's compilation metrics
(the `compilation_metrics` of TORCH_TRACE) recorded for each frame. Fill in `ANSWERS`: how many
frames were compiled, the op count of the largest graph, and the ops of all graphs together.
The grader measures the same things itself.
"""

import torch

ENCODER = [torch.randn(16, 16) / 4 for _ in range(24)]

ANSWERS = {"frames": None, "largest_graph_ops": None, "total_graph_ops": None}  # TODO: measure, then fill in


def pipeline(x):
    x = (x - x.mean()) / (x.std() + 1e-5)
    print("encoding")
    for w in ENCODER:
        x = torch.tanh(x @ w) + x
    return x


if __name__ == "__main__":
    from autograder.lab import frame_report

    for record in frame_report(pipeline, [(torch.randn(4, 16),)]):
        print(record)

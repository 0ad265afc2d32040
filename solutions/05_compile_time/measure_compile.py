# /// exercise
# format_version = 1
# title = "Read the compilation metrics: where does compile time go?"
# syllabus = ["5.5"]
# entry = "pipeline"
# starter_fails = ["answers"]
# hints = [
#   "Run the file: it prints one compilation-metrics record per frame Dynamo compiled.",
#   "A graph break ends one frame's graph; the code after it is compiled as a new (resume) frame.",
#   "Count the records and add up their graph ops; the seconds show where the time went (lesson section 5.5).",
#   "Fill ANSWERS from the printed records: frames, largest_graph_ops, total_graph_ops.",
# ]
#
# [[checks]]
# kind = "answers"
# constant = "ANSWERS"
# truth = "expected_answers"
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 1
# ///
"""Measure how compile time splits over the frames of `pipeline`.

`pipeline` prepares its input, prints (a graph break), then runs a 24-layer encoder. Run the
file: it compiles `pipeline` once (backend "eager") and prints what Dynamo's compilation metrics
(the `compilation_metrics` of TORCH_TRACE) recorded for each frame. Fill in `ANSWERS`: how many
frames were compiled, the op count of the largest graph, and the ops of all graphs together.
The grader measures the same things itself.
"""

import torch

ENCODER = [torch.randn(16, 16) / 4 for _ in range(24)]

# BEGIN SOLUTION
ANSWERS = {"frames": 2, "largest_graph_ops": 72, "total_graph_ops": 77}
# END SOLUTION
# BEGIN STARTER
# ANSWERS = {"frames": None, "largest_graph_ops": None, "total_graph_ops": None}  # TODO: measure, then fill in
# END STARTER


def pipeline(x):
    x = (x - x.mean()) / (x.std() + 1e-5)
    print("encoding")
    for w in ENCODER:
        x = torch.tanh(x @ w) + x
    return x


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(4, 16, generator=gen),)]


def expected_answers():
    from autograder.lab import frame_report

    records = frame_report(pipeline, [(torch.randn(4, 16),)])
    return {"frames": len(records), "largest_graph_ops": max(r["graph_ops"] for r in records),
            "total_graph_ops": sum(r["graph_ops"] for r in records)}
# END GRADER


if __name__ == "__main__":
    from autograder.lab import frame_report

    for record in frame_report(pipeline, [(torch.randn(4, 16),)]):
        print(record)

# /// exercise
# format_version = 1
# title = "One graph for an encoder whose activations are saved"
# syllabus = ["1.2"]
# entry = "encode"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: fullgraph=True reports the break at one line of encode. Which call is it?",
#   "torch.save is on Dynamo's skip list: it cannot be traced, so a graph has to end there. Under fullgraph=True that is an error.",
#   "Writing a file is not tensor work. Keep it out of the compiled function: return what must be saved and let the caller save it (lesson section 1.2).",
#   "End encode with `return torch.nn.functional.normalize(hidden, dim=-1), hidden`, and in `run` unpack both values and call torch.save on the second.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[requirements]]
# id = "one_graph"
# text = "`encode` compiles as one graph with `fullgraph=True`: no graph break."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "hands_back_hidden"
# text = "`encode` returns `(embedding, hidden)`: the row-normalised embedding and the hidden activations."
# checks = ["correct"]
#
# [[fair]]
# name = "by_hand"
# why = "the row normalisation written out, with the same clamp F.normalize applies"
#
# [[fair]]
# name = "keep_then_save"
# why = "the caller collects the activations and saves them after the compiled call, under another name"
#
# [[wrong]]
# name = "save_in_helper"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*torch\\.save|torch\\.save"
#
# [[wrong]]
# name = "embedding_only"
# breaks = "hands_back_hidden"
# fails = ["correct"]
# message = "should be a tuple of 2 items|should be a tensor"
#
# [[wrong]]
# name = "global_norm"
# breaks = "hands_back_hidden"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "unclamped_norm"
# breaks = "hands_back_hidden"
# fails = ["correct"]
# message = "differs from the reference \\(largest difference inf\\)"
# ///
"""Make `encode` compile as one graph with `fullgraph=True`.

`run` is what the training script does on every batch: it compiles `encode`, calls it, and saves
the hidden activations to `path`. Eagerly it works; compiled with `fullgraph=True` it fails. You
may change `encode` and `run` together. The grader compiles and checks `encode` itself; `run` is
yours to keep right, it is not graded.
"""

import torch
import torch.nn.functional as F


def encode(x, weight):
    # BEGIN SOLUTION
    hidden = torch.tanh(x @ weight)
    return F.normalize(hidden, dim=-1), hidden
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make this function compile with fullgraph=True (its caller, run, may change too).
    # hidden = torch.tanh(x @ weight)
    # torch.save(hidden, "hidden.pt")
    # return F.normalize(hidden, dim=-1)
    # END STARTER
    # BEGIN FAIR by_hand
    # hidden = torch.tanh(x @ weight)
    # norms = hidden.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    # return hidden / norms, hidden
    # END FAIR
    # BEGIN WRONG save_in_helper
    # hidden = torch.tanh(x @ weight)
    # _save(hidden)
    # return F.normalize(hidden, dim=-1), hidden
    # END WRONG
    # BEGIN WRONG embedding_only
    # hidden = torch.tanh(x @ weight)
    # return F.normalize(hidden, dim=-1)
    # END WRONG
    # BEGIN WRONG global_norm
    # hidden = torch.tanh(x @ weight)
    # return hidden / hidden.norm(), hidden
    # END WRONG
    # BEGIN WRONG unclamped_norm
    # hidden = torch.tanh(x @ weight)
    # return hidden / hidden.norm(dim=-1, keepdim=True), hidden
    # END WRONG


# BEGIN WRONG save_in_helper
# def _save(tensor, path="hidden.pt"):
#     torch.save(tensor, path)
# END WRONG


def run(x, weight, path="hidden.pt"):
    """What the training script does: compile encode, call it, keep the activations."""
    # backend="eager" runs the captured graph as it is, without generating code: the trace and its
    # graph breaks are the ones the default backend (Inductor) would see, at a fraction of the time.
    compiled = torch.compile(encode, fullgraph=True, backend="eager")
    # BEGIN SOLUTION
    embedding, hidden = compiled(x, weight)
    torch.save(hidden, path)
    return embedding
    # END SOLUTION
    # BEGIN STARTER
    # return compiled(x, weight)
    # END STARTER
    # BEGIN FAIR keep_then_save
    # embedding, activations = compiled(x, weight)
    # checkpoint = {"hidden": activations.detach()}
    # torch.save(checkpoint["hidden"], path)
    # return embedding
    # END FAIR
    # BEGIN WRONG embedding_only
    # embedding = compiled(x, weight)
    # torch.save(torch.tanh(x @ weight), path)
    # return embedding
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """One batch shape per grading (drawn per seed, always several rows, so that a norm over the
    whole batch differs from one per row), and a batch whose first row is all zeros: its hidden
    row is exactly zero, where a normalisation without F.normalize's clamp divides by zero."""
    rows = int(torch.randint(2, 13, (1,), generator=gen))
    weight = torch.randn(16, 8, generator=gen)
    batches = [torch.randn(rows, 16, generator=gen) for _ in range(3)]
    batches[1][0] = 0.0
    return [(x, weight) for x in batches]
# END GRADER


if __name__ == "__main__":
    x, weight = torch.randn(4, 16), torch.randn(16, 8)
    print(run(x, weight).shape)

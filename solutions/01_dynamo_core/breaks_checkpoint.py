# /// exercise
# format_version = 1
# title = "Save the activations outside the graph"
# syllabus = ["1.2"]
# entry = "encode"
# compile = { fullgraph = true }
# starter_fails = ["compiles"]
# hints = [
#   "Run the file: the break is reported at the line that calls torch.save.",
#   "torch.save is on Dynamo's skip list: it cannot be traced, so a graph has to end there. Under fullgraph=True that is an error.",
#   "Writing a file is not tensor work. Keep it out of the compiled function: return what must be saved and let the caller save it (strategy 3 of lesson 2, shown in lesson section 1.2).",
#   "End encode with `return torch.nn.functional.normalize(hidden, dim=-1), hidden`; `run` already saves the second value.",
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
# ///
"""Keep `encode` in one graph while its hidden activations still get saved.

`encode` is compiled with `fullgraph=True`, so any graph break is an error. It currently saves
its hidden activations with `torch.save` in the middle of the computation, and that call cannot
be traced. Change `encode` so that it returns `(embedding, hidden)`: the caller, `run`, saves
`hidden` outside the compiled code.
"""

import torch
import torch.nn.functional as F


def encode(x, weight):
    hidden = torch.tanh(x @ weight)
    # BEGIN SOLUTION
    return F.normalize(hidden, dim=-1), hidden
    # END SOLUTION
    # BEGIN STARTER
    # torch.save(hidden, "hidden.pt")  # TODO: this call cannot be traced; move the save out of encode
    # return F.normalize(hidden, dim=-1)
    # END STARTER


def run(x, weight, path="hidden.pt"):
    """What the training script does: compile encode, call it, keep the activations."""
    # backend="eager" runs the captured graphs as they are: tracing, breaks, guards and recompiles
    # are exactly those of the default Inductor backend, without its compile time.
    compiled = torch.compile(encode, fullgraph=True, backend="eager")
    # BEGIN SOLUTION
    embedding, hidden = compiled(x, weight)
    torch.save(hidden, path)
    return embedding
    # END SOLUTION
    # BEGIN STARTER
    # return compiled(x, weight)  # TODO: save the hidden activations here, outside the compiled code
    # END STARTER


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(16, 8, generator=gen)
    return [(torch.randn(4, 16, generator=gen), weight) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    x, weight = torch.randn(4, 16), torch.randn(16, 8)
    print(run(x, weight).shape)

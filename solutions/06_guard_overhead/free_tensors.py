# /// exercise
# format_version = 1
# title = "Serve a reloadable model whose graphs take only the real input"
# syllabus = ["6.1"]
# entry = "make_model"
# factory = true
# driver = "run"
# allow_config = ["install_free_tensors"]
# starter_fails = ["guards"]
# hints = [
#   "Run the file: it prints each graph's inputs. Besides `x`, the graph takes the weight and bias of every layer, and the bytecode Dynamo wrote gathers them before every call.",
#   "A torch._dynamo setting turns parameters, buffers and global tensors into parts of the graph instead of inputs (lesson section 6.1). Read what the lesson says it costs: the graph keeps the parameter objects it saw while tracing.",
#   "Once the graph holds the parameter objects, a reload that replaces them is not seen: `load_state_dict(..., assign=True)` puts the loaded tensors in as new parameters. A reload that copies the new values into the parameters the graph already holds is seen.",
#   "torch._dynamo.config.install_free_tensors = True at the top of the file, and in `reload`: model.load_state_dict(state) (copy into the existing parameters, the default).",
# ]
#
# [[checks]]
# kind = "guards"
# max_inputs = 1
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[requirements]]
# id = "one_input"
# text = "Each graph takes only the real input `x`: no parameter is gathered as a graph input before a call."
# checks = ["guards"]
#
# [[requirements]]
# id = "follows_reload"
# text = "Every answer is computed with the weights loaded last; `reload` may come between any two calls."
# checks = ["correct"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[fair]]
# name = "copy_in_place"
# why = "copies each loaded tensor into its parameter under no_grad instead of load_state_dict"
#
# [[fair]]
# name = "swap_data"
# why = "gives each existing parameter the loaded tensor as its data (`.data =`): the parameter objects the graph holds stay"
#
# [[fair]]
# name = "patched_around_call"
# why = "the setting in a `torch._dynamo.config.patch` block around the model call in `run` (the context-manager form of lesson 6.1), not set for the whole process"
#
# [[wrong]]
# name = "toggle_only"
# breaks = "follows_reload"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "new_parameters"
# breaks = "follows_reload"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "inputs_kept"
# breaks = "one_input"
# fails = ["guards"]
# message = "graph inputs per graph: \\[9\\].*at most 1 input"
#
# [[wrong]]
# name = "eager_model"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of \\d+ calls ran compiled code"
# ///
"""Make each call of a served model cheaper before its graph runs, without serving stale weights.

`Tower` is a 4-layer model that a service keeps in memory. The grader builds it with
`make_model()`, compiles it, and drives it with your `run(model, x, weights)` over a schedule
of calls: `weights` is usually None, and sometimes new weights from a training job, which
`reload` loads into the model first. Run the file: each graph takes `x` and all eight parameters as
inputs, and the bytecode that Dynamo wrote gathers them before every call.
"""

import torch
import torch._dynamo

# BEGIN SOLUTION
torch._dynamo.config.install_free_tensors = True
# END SOLUTION
# BEGIN STARTER
# # TODO: each graph takes the input and all eight parameters; make it take only `x`.
# END STARTER
# BEGIN WRONG inputs_kept
# # install_free_tensors left off: every parameter stays a graph input
# END WRONG
# BEGIN FAIR patched_around_call
# # install_free_tensors is set around the model call in `run` only
# END FAIR


class Tower(torch.nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(depth)])

    # BEGIN WRONG eager_model
    # @torch.compiler.disable
    # END WRONG
    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def make_model():
    return Tower()


def reload(model, weights):
    """Load new weights, a (weight, bias) pair per layer, into the served model."""
    for layer, (weight, bias) in zip(model.layers, weights):
        # BEGIN SOLUTION
        layer.load_state_dict({"weight": weight, "bias": bias})
        # END SOLUTION
        # BEGIN STARTER
        # layer.load_state_dict({"weight": weight, "bias": bias}, assign=True)
        # END STARTER
        # BEGIN FAIR copy_in_place
        # with torch.no_grad():
        #     layer.weight.copy_(weight)
        #     layer.bias.copy_(bias)
        # END FAIR
        # BEGIN FAIR swap_data
        # layer.weight.data, layer.bias.data = weight.clone(), bias.clone()
        # END FAIR
        # BEGIN WRONG toggle_only
        # layer.load_state_dict({"weight": weight, "bias": bias}, assign=True)
        # END WRONG
        # BEGIN WRONG new_parameters
        # layer.weight = torch.nn.Parameter(weight.clone())
        # layer.bias = torch.nn.Parameter(bias.clone())
        # END WRONG


def run(model, x, weights):
    if weights is not None:
        reload(model, weights)
    # BEGIN SOLUTION
    return model(x)
    # END SOLUTION
    # BEGIN STARTER
    # return model(x)
    # END STARTER
    # BEGIN FAIR patched_around_call
    # with torch._dynamo.config.patch(install_free_tensors=True):
    #     return model(x)
    # END FAIR


# BEGIN GRADER
def calls(gen):
    """6 to 9 calls; a reload before one call in the first half and one in the second, at places
    drawn per seed (never the first call), each with weights drawn per seed."""
    count = int(torch.randint(6, 10, (1,), generator=gen))
    first = int(torch.randint(1, count // 2, (1,), generator=gen))
    second = int(torch.randint(count // 2 + 1, count, (1,), generator=gen))

    def weights():
        return [(torch.randn(8, 8, generator=gen) / 3, torch.randn(8, generator=gen) / 3) for _ in range(4)]

    return [(torch.randn(2, 8, generator=gen), weights() if i in (first, second) else None) for i in range(count)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import guard_report

    new_weights = [(torch.randn(8, 8) / 3, torch.randn(8) / 3) for _ in range(4)]
    schedule = [(torch.randn(2, 8), None), (torch.randn(2, 8), None), (torch.randn(2, 8), new_weights)]
    print(guard_report(make_model(), schedule, {}, driver=run))  # "inputs": the graph inputs of each graph

# /// exercise
# format_version = 1
# title = "Compile the skip-connection projection as one graph"
# syllabus = ["2.2.1"]
# entry = "fuse"
# compile = { fullgraph = true }
# starter_fails = ["compiles", "correct"]
# hints = [
#   "Run the file. With fullgraph=True the error reads like a compiler problem: \"TypeError when making fake tensor call\".",
#   "Before you blame the compiler, run the same code without it: call fuse directly, or wrap the call in `with torch.compiler.set_stance(\"force_eager\"):`. What does the eager error say?",
#   "Lesson section 2.2.1: Dynamo runs every operation on fake tensors while it traces, so code that fails eagerly fails there first. Read the signature of torch.cat, and mind which dimension holds the features when there is more than one leading dimension.",
#   "torch.cat takes one sequence of tensors: `torch.cat([h, skip], dim=-1)`.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 3
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "one_graph"
# text = "`fuse` compiles with `fullgraph=True`: no graph break."
# checks = ["compiles"]
#
# [[requirements]]
# id = "joined"
# text = "It returns `tanh(concat(h, skip) @ weight)`, `h`'s features first, then `skip`'s, concatenated along the last dimension, for inputs with any number of leading dimensions."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "split_weight"
# why = "no concatenation at all: each part is projected by its own rows of the weight, and the two products are added"
#
# [[fair]]
# name = "pad_and_add"
# why = "the concatenation built by padding each part with zeros to the full width and adding"
#
# [[wrong]]
# name = "through_lists"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*tolist"
#
# [[wrong]]
# name = "swapped_order"
# breaks = "joined"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "second_dimension"
# breaks = "joined"
# fails = ["correct"]
# message = "Call \\d of \\d+ did not return"
#
# [[wrong]]
# name = "disabled_join"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Make `fuse` compile as one graph.

`fuse` joins a block's output `h` (its last dimension holds 8 features) with the block's skip
connection `skip` (4 features), and projects the result with `weight`. Compiled with
`fullgraph=True` it fails, with a message about fake tensors.
"""

import torch


# BEGIN WRONG disabled_join
# @torch.compiler.disable
# def join(h, skip):
#     return torch.cat([h, skip], dim=-1)
# END WRONG


def fuse(h, skip, weight):
    # BEGIN SOLUTION
    joined = torch.cat([h, skip], dim=-1)
    return torch.tanh(joined @ weight)
    # END SOLUTION
    # BEGIN STARTER
    # # TODO: make fuse compile with fullgraph=True.
    # joined = torch.cat(h, skip, dim=-1)
    # return torch.tanh(joined @ weight)
    # END STARTER
    # BEGIN FAIR split_weight
    # features = h.shape[-1]
    # return torch.tanh(h @ weight[:features] + skip @ weight[features:])
    # END FAIR
    # BEGIN FAIR pad_and_add
    # wide = h.shape[-1] + skip.shape[-1]
    # joined = torch.nn.functional.pad(h, (0, wide - h.shape[-1])) + torch.nn.functional.pad(skip, (wide - skip.shape[-1], 0))
    # return torch.tanh(joined @ weight)
    # END FAIR
    # BEGIN WRONG through_lists
    # joined = torch.tensor([a + b for a, b in zip(h.tolist(), skip.tolist())])
    # return torch.tanh(joined @ weight)
    # END WRONG
    # BEGIN WRONG swapped_order
    # joined = torch.cat([skip, h], dim=-1)
    # return torch.tanh(joined @ weight)
    # END WRONG
    # BEGIN WRONG second_dimension
    # joined = torch.cat([h, skip], dim=1)
    # return torch.tanh(joined @ weight)
    # END WRONG
    # BEGIN WRONG disabled_join
    # return torch.tanh(join(h, skip) @ weight)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Batches of rows (one of a single row), then a batch of sequences, with two leading
    dimensions (sizes drawn per seed): the features are always the last dimension."""
    weight = torch.randn(12, 4, generator=gen)
    rows = int(torch.randint(2, 9, (1,), generator=gen))
    batch, length = (int(v) for v in torch.randint(2, 6, (2,), generator=gen))

    def pair(*lead):
        return torch.randn(*lead, 8, generator=gen), torch.randn(*lead, 4, generator=gen), weight

    return [pair(rows), pair(1), pair(rows), pair(batch, length)]
# END GRADER


if __name__ == "__main__":
    args = (torch.randn(3, 8), torch.randn(3, 4), torch.randn(12, 4))
    print(torch.compile(fuse, fullgraph=True, backend="eager")(*args))

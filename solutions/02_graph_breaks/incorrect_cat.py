# /// exercise
# format_version = 1
# title = "A graph break that is really a bug"
# syllabus = ["2.2.1"]
# entry = "fuse"
# compile = { fullgraph = true }
# starter_fails = ["compiles", "correct"]
# hints = [
#   "Run the file. With fullgraph=True the error reads like a compiler problem: \"TypeError when making fake tensor call\".",
#   "Before you blame the compiler, run the same code without it: call fuse directly, or wrap the call in `with torch.compiler.set_stance(\"force_eager\"):`. The eager error is plain Python's.",
#   "Lesson section 2.2.1: the eager run raises the same TypeError. The code is wrong; the compiler only found it first. Read the signature of torch.cat.",
#   "torch.cat takes one sequence of tensors: `torch.cat([h, skip], dim=-1)`.",
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
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Find out whether the break is the compiler's fault, and fix it.

`fuse` joins a block's output with its skip connection and projects the result. Compiled with
`fullgraph=True` it fails with a message about fake tensors. Run it without the compiler to see
what is really wrong, then fix `fuse` so that it compiles into one graph with `fullgraph=True`
and returns `tanh(concat(h, skip) @ weight)`.
"""

import torch


def fuse(h, skip, weight):
    # BEGIN SOLUTION
    joined = torch.cat([h, skip], dim=-1)
    # END SOLUTION
    # BEGIN STARTER
    # joined = torch.cat(h, skip, dim=-1)  # TODO: does this line run without torch.compile?
    # END STARTER
    return torch.tanh(joined @ weight)


# BEGIN GRADER
def calls(gen):
    weight = torch.randn(12, 4, generator=gen)
    return [(torch.randn(3, 8, generator=gen), torch.randn(3, 4, generator=gen), weight) for _ in range(3)]
# END GRADER


if __name__ == "__main__":
    args = (torch.randn(3, 8), torch.randn(3, 4), torch.randn(12, 4))
    print(torch.compile(fuse, fullgraph=True, backend="eager")(*args))

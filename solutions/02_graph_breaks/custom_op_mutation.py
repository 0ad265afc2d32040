# /// exercise
# format_version = 1
# title = "Make the clipping operator safe to compile"
# syllabus = ["2.4"]
# entry = "squash"
# compile = { fullgraph = true }
# starter_fails = ["opcheck"]
# hints = [
#   "Run the file: it calls torch.library.opcheck on the operator, which tests the registration against the real kernel and names the first test that fails. Fix that, run it again: there is more than one problem.",
#   "A custom operator is opaque to the compiler. It never looks inside clip_count: it keeps one call in the graph, runs the kernel on every call, and believes two promises, what mutates_args says about the arguments and what the fake kernel says about the output. Inductor plans its code from both.",
#   "Lesson section 2.4: compare each promise with the kernel. Does the kernel write to an argument that mutates_args leaves out? Does the fake kernel return an output of the real output's shape, dtype and device?",
#   "Register with `mutates_args={\"x\"}`, and make the fake kernel `return x.new_empty(1)` (the kernel returns `count.reshape(1)`). Or change the kernel so that both agree on a count of shape ().",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "escape_hatch"
# name = "op"
# via = "custom_op"
# points = 1
#
# [[checks]]
# kind = "opcheck"
# op = "course::clip_count"
# samples = "op_samples"
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "one_graph"
# text = "`squash` compiles with `fullgraph=True` into one graph that calls the custom operator `course::clip_count`."
# checks = ["compiles", "graphs", "op"]
#
# [[requirements]]
# id = "trustworthy"
# text = "The operator's registration tells the truth about its kernel, for inputs of any shape: `torch.library.opcheck` passes."
# checks = ["opcheck"]
#
# [[requirements]]
# id = "same_results"
# text = "`squash` returns what it returns now for a batch of rows (any number of rows and columns): the doubled input clipped to `[-1, 1]`, plus the number of values the clip changed."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` branch or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "scalar_count"
# why = "the kernel made to match its fake kernel (a count of shape ()), and the mutation declared"
#
# [[fair]]
# name = "pure_operator"
# why = "no mutation at all: the operator returns the clipped tensor and the count, and squash uses both"
#
# [[wrong]]
# name = "fake_deleted"
# breaks = "one_graph"
# fails = ["compiles", "graphs"]
# message = "fake tensor call|No complete run"
#
# [[wrong]]
# name = "plain_function"
# breaks = "one_graph"
# fails = ["op"]
# message = "calls no custom operator"
#
# [[wrong]]
# name = "schema_still_false"
# breaks = "trustworthy"
# fails = ["opcheck"]
# message = "test_schema.*not defined as mutable but was mutated"
#
# [[wrong]]
# name = "fake_still_wrong"
# breaks = "trustworthy"
# fails = ["opcheck"]
# message = "test_faketensor"
#
# [[wrong]]
# name = "integer_count"
# breaks = "trustworthy"
# fails = ["opcheck"]
# message = "test_faketensor.*[Dd]types"
#
# [[wrong]]
# name = "clip_a_copy"
# breaks = "same_results"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "in_graph_opaque"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "allow_in_graph"
# ///
"""Make the clipping operator safe to compile.

`clip_count` is a custom operator (in production its kernel is C++; the torch code here stands in
for it): it clips its input to `[-limit, limit]` in place and returns how many values it clipped.
`squash` compiles with `fullgraph=True` and gives the right numbers with the `eager` and
`aot_eager` backends. The team's Inductor build does not: on torch 2.13 it stops with an
assertion inside the generated code.
"""

# BEGIN STARTER
# # TODO: find out why Inductor cannot trust this operator, and fix it.
# END STARTER

import torch


# BEGIN SOLUTION
@torch.library.custom_op("course::clip_count", mutates_args={"x"})
def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
    count = (x.abs() > limit).sum().to(x.dtype)
    x.clamp_(-limit, limit)
    return count.reshape(1)


@clip_count.register_fake
def _(x, limit):
    return x.new_empty(1)
# END SOLUTION
# BEGIN STARTER
# @torch.library.custom_op("course::clip_count", mutates_args=())
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(())
# END STARTER
# BEGIN FAIR scalar_count
# @torch.library.custom_op("course::clip_count", mutates_args=("x",))
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(())
# END FAIR
# BEGIN FAIR pure_operator
# @torch.library.custom_op("course::clip_count", mutates_args=())
# def clip_count(x: torch.Tensor, limit: float) -> tuple[torch.Tensor, torch.Tensor]:
#     count = (x.abs() > limit).sum().to(x.dtype).reshape(1)
#     return x.clamp(-limit, limit), count
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return torch.empty_like(x), x.new_empty(1)
# END FAIR
# BEGIN WRONG fake_deleted
# @torch.library.custom_op("course::clip_count", mutates_args={"x"})
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
# END WRONG
# BEGIN WRONG plain_function
# def clip_count(x, limit):
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
# END WRONG
# BEGIN WRONG schema_still_false
# @torch.library.custom_op("course::clip_count", mutates_args=())
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(1)
# END WRONG
# BEGIN WRONG fake_still_wrong
# @torch.library.custom_op("course::clip_count", mutates_args={"x"})
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(())
# END WRONG
# BEGIN WRONG integer_count
# @torch.library.custom_op("course::clip_count", mutates_args={"x"})
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(1, dtype=torch.int64)  # a count is a whole number
# END WRONG
# BEGIN WRONG clip_a_copy
# @torch.library.custom_op("course::clip_count", mutates_args=())
# def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x = x.clone().clamp_(-limit, limit)
#     return count.reshape(1)
#
#
# @clip_count.register_fake
# def _(x, limit):
#     return x.new_empty(1)
# END WRONG
# BEGIN WRONG in_graph_opaque
# @torch.compiler.allow_in_graph
# def clip_count(x, limit):
#     count = (x.abs() > limit).sum().to(x.dtype)
#     x.clamp_(-limit, limit)
#     return count.reshape(1)
# END WRONG


def squash(x):
    # BEGIN SOLUTION
    y = x * 2
    clipped = clip_count(y, 1.0)
    return y + clipped
    # END SOLUTION
    # BEGIN STARTER
    # y = x * 2
    # clipped = clip_count(y, 1.0)
    # return y + clipped
    # END STARTER
    # BEGIN FAIR pure_operator
    # y, clipped = clip_count(x * 2, 1.0)
    # return y + clipped
    # END FAIR


# BEGIN GRADER
def calls(gen):
    """Inputs with values on both sides of the clip, of a shape drawn per seed that stays the same
    within a grading."""
    rows, cols = (int(v) for v in torch.randint(1, 6, (2,), generator=gen))
    return [(torch.randn(rows, cols, generator=gen),) for _ in range(3)]


def op_samples(gen):
    """The shape squash uses, and shapes it never shows: one dimension, and three."""
    return [(torch.randn(3, 4, generator=gen), 1.0), (torch.randn(7, generator=gen), 0.5),
            (torch.randn(2, 3, 2, generator=gen), 2.0)]
# END GRADER


if __name__ == "__main__":
    x = torch.tensor([0.2, 3.0, -4.0])
    print("eager:   ", squash(x.clone()))
    print("compiled:", torch.compile(squash, fullgraph=True, backend="aot_eager")(x.clone()))
    print(torch.library.opcheck(clip_count, (torch.randn(3, 4), 1.0)))

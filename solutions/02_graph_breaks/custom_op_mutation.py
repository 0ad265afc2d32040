# /// exercise
# format_version = 1
# title = "A custom operator that hides a mutation"
# syllabus = ["2.4"]
# entry = "squash"
# compile = { fullgraph = true }
# starter_fails = ["opcheck"]
# hints = [
#   "Run the file: the graph compiles, but torch.library.opcheck rejects the operator: \"Argument x is not defined as mutable but was mutated\".",
#   "clip_count writes into its input with clamp_, yet its registration says mutates_args=(): it claims to be pure. The compiler believes the claim and may reorder or reuse values as if x never changed (Inductor does, and gets wrong results).",
#   "Lesson section 2.4: a custom op's schema must tell the truth. Either declare the argument it writes to, or stop writing to it.",
#   "Change the registration to `@torch.library.custom_op(\"course::clip_count\", mutates_args={\"x\"})`. The fake kernel stays as it is.",
# ]
#
# [[checks]]
# kind = "compiles"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "graphs"
# equal = 1
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "escape_hatch"
# name = "op"
# via = "custom_op"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "opcheck"
# op = "course::clip_count"
# samples = "op_samples"
# points = 3
#
# [[checks]]
# kind = "correct"
# points = 0  # the starting file already passes this: a gate, no points
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
# ///
"""Make the custom operator's registration tell the truth.

`clip_count` is a custom operator: it clips its input to `[-limit, limit]` *in place* and
returns how many values it clipped. Its registration claims that it mutates nothing. `squash`
compiles and seems to work, but the claim is false, and a compiler that trusts it may produce
wrong results. The grader runs `torch.library.opcheck` on `course::clip_count`. Fix the
registration so that it passes, and keep `squash`'s results.
"""

import torch


# BEGIN SOLUTION
@torch.library.custom_op("course::clip_count", mutates_args={"x"})
# END SOLUTION
# BEGIN STARTER
# @torch.library.custom_op("course::clip_count", mutates_args=())  # TODO: does clip_count really mutate nothing?
# END STARTER
def clip_count(x: torch.Tensor, limit: float) -> torch.Tensor:
    count = (x.abs() > limit).sum().to(x.dtype)
    x.clamp_(-limit, limit)
    return count.reshape(1)


@clip_count.register_fake
def _(x, limit):
    return x.new_empty(1)


def squash(x):
    y = x * 2
    clipped = clip_count(y, 1.0)
    return y + clipped


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(3, 4, generator=gen),) for _ in range(3)]


def op_samples(gen):
    return [(torch.randn(3, 4, generator=gen), 1.0), (torch.randn(7, generator=gen), 0.5)]
# END GRADER


if __name__ == "__main__":
    print(squash(torch.tensor([0.2, 3.0, -4.0])))
    print(torch.library.opcheck(clip_count, (torch.tensor([0.2, 3.0, -4.0]), 1.0)))

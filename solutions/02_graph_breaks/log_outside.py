# /// exercise
# format_version = 1
# title = "Compile the clipping step and keep its warning"
# syllabus = ["2.2.3"]
# entry = "clip"
# # The grader calls serve(compiled_clip, x, limit): the eager code around the compiled function.
# driver = "serve"
# compile = { fullgraph = true }
# # ignore_logging_functions may gain logging functions (nothing else); it drops their messages, though.
# config_may_add = { ignore_logging_functions = ["logging"] }
# starter_fails = ["compiles", "warning"]
# hints = [
#   "Run the file: fullgraph=True stops at log.warning with \"logging.Logger method not supported\".",
#   "Unlike print, a Logger method cannot be made reorderable: Dynamo refuses it even in reorderable_logging_functions. Listing it in ignore_logging_functions makes the graph whole by dropping the call, and this task keeps the warning: the grader compares what each call logs with the code run without the compiler.",
#   "Lesson sections 2.2.3 and 2.1.3: keep the logging out of the compiled code. What does serve, which is not compiled, need from clip to log the same line?",
#   "clip returns `(clipped, count)`; serve does `out, count = step(x, limit)`, then `log.warning(\"clipped %d values\", int(count))`, and returns out.",
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
# kind = "output"
# name = "warning"
# stream = "logging"
# expect = "reference"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "set_stance", "eager_fallback"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[requirements]]
# id = "one_graph"
# text = "`clip` compiles with `fullgraph=True` into one graph that serves every call."
# checks = ["compiles", "graphs"]
#
# [[requirements]]
# id = "keeps_warning"
# text = "Every call of `serve` logs what it logs now through the `course.clip` logger: `clipped N values`, where N counts the values beyond `limit` (a value equal to `limit` is not clipped), 0 included."
# checks = ["warning"]
#
# [[requirements]]
# id = "clipped"
# text = "`serve` returns the batch clamped to `[-limit, limit]`."
# checks = ["correct"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph` or `set_stance`."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "return_mask"
# why = "clip hands back the mask of clipped values, and serve counts it"
#
# [[fair]]
# name = "count_outside"
# why = "clip only clamps; serve, which is not compiled, counts the values beyond the limit itself"
#
# [[wrong]]
# name = "reorderable_logger"
# breaks = "one_graph"
# fails = ["compiles"]
# message = "[Gg]raph break.*[Ll]ogger"
#
# [[wrong]]
# name = "ignored_warning"
# breaks = "keeps_warning"
# fails = ["warning"]
# message = "The message is gone"
#
# [[wrong]]
# name = "limit_counted"
# breaks = "keeps_warning"
# fails = ["warning"]
# message = "clipped \\d+ values'\\]; the reference logged \\['[^']*clipped \\d+ values'\\]"
#
# [[wrong]]
# name = "only_when_clipped"
# breaks = "keeps_warning"
# fails = ["warning"]
# message = "logged \\[\\]; the reference logged \\['[^']*clipped 0 values'\\]"
#
# [[wrong]]
# name = "returns_pair"
# breaks = "clipped"
# fails = ["correct"]
# message = "should be a tensor, got tuple"
#
# [[wrong]]
# name = "disabled_logger"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
#
# [[wrong]]
# name = "plain_call"
# breaks = "one_graph"
# fails = ["graphs"]
# message = "0 graph\\(s\\) compiled"
# ///
"""Compile the clipping step into one graph and keep its warning.

`clip` limits a batch of activations to `[-limit, limit]` and logs a warning with the number of
values it clipped. The grader compiles `clip` with `fullgraph=True` and calls
`serve(compiled_clip, x, limit)`, comparing each call's output *and* the warnings it logs with
the code run without the compiler. You may change `clip` and `serve` together.
(`ignore_logging_functions` may gain logging functions, but it drops their messages.)
"""

import logging

import torch

log = logging.getLogger("course.clip")

# BEGIN WRONG reorderable_logger
# torch._dynamo.config.reorderable_logging_functions.add(log.warning)
# END WRONG
# BEGIN WRONG ignored_warning
# torch._dynamo.config.ignore_logging_functions.add(log.warning)
# END WRONG
# BEGIN WRONG disabled_logger
# @torch.compiler.disable
# def warn(count):
#     log.warning("clipped %d values", count)
# END WRONG


# BEGIN SOLUTION
def clip(x, limit):
    count = (x.abs() > limit).sum()
    return x.clamp(-limit, limit), count
# END SOLUTION
# BEGIN STARTER
# def clip(x, limit):
#     # TODO: make clip compile with fullgraph=True, and keep the warning (serve may change too).
#     count = (x.abs() > limit).sum()
#     log.warning("clipped %d values", count)
#     return x.clamp(-limit, limit)
# END STARTER
# BEGIN FAIR return_mask
# def clip(x, limit):
#     beyond = x.abs() > limit
#     return torch.where(beyond, x.sign() * limit, x), beyond
# END FAIR
# BEGIN FAIR count_outside
# def clip(x, limit):
#     return torch.clamp(x, min=-limit, max=limit)
# END FAIR
# BEGIN WRONG reorderable_logger
# def clip(x, limit):
#     count = (x.abs() > limit).sum()
#     log.warning("clipped %d values", count)
#     return x.clamp(-limit, limit)
# END WRONG
# BEGIN WRONG ignored_warning
# def clip(x, limit):
#     count = (x.abs() > limit).sum()
#     log.warning("clipped %d values", count)
#     return x.clamp(-limit, limit)
# END WRONG
# BEGIN WRONG limit_counted
# def clip(x, limit):
#     count = (x.abs() >= limit).sum()
#     return x.clamp(-limit, limit), count
# END WRONG
# BEGIN WRONG disabled_logger
# def clip(x, limit):
#     count = (x.abs() > limit).sum()
#     warn(count)
#     return x.clamp(-limit, limit)
# END WRONG


def serve(step, x, limit):
    """The eager caller; `step` is the compiled clip."""
    # BEGIN SOLUTION
    out, count = step(x, limit)
    log.warning("clipped %d values", int(count))
    return out
    # END SOLUTION
    # BEGIN STARTER
    # return step(x, limit)
    # END STARTER
    # BEGIN FAIR return_mask
    # out, beyond = step(x, limit)
    # log.warning("clipped %d values", int(beyond.sum()))
    # return out
    # END FAIR
    # BEGIN FAIR count_outside
    # out = step(x, limit)
    # log.warning("clipped %d values", int((x.abs() > limit).sum()))
    # return out
    # END FAIR
    # BEGIN WRONG reorderable_logger
    # return step(x, limit)
    # END WRONG
    # BEGIN WRONG ignored_warning
    # return step(x, limit)
    # END WRONG
    # BEGIN WRONG only_when_clipped
    # out, count = step(x, limit)
    # if count > 0:
    #     log.warning("clipped %d values", int(count))
    # return out
    # END WRONG
    # BEGIN WRONG returns_pair
    # result = step(x, limit)
    # log.warning("clipped %d values", int(result[1]))
    # return result
    # END WRONG
    # BEGIN WRONG disabled_logger
    # return step(x, limit)
    # END WRONG
    # BEGIN WRONG plain_call
    # out, count = clip(x, limit)
    # log.warning("clipped %d values", int(count))
    # return out
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """A limit drawn per seed (exact in float32), batches with values exactly at the limit (not
    clipped) and a batch with nothing beyond it (the warning still says 0)."""
    limit = float(torch.randint(4, 9, (1,), generator=gen)) / 4
    shape = (6, 5)

    def batch():
        x = 2 * torch.randn(*shape, generator=gen)
        x[0, :2] = torch.tensor([limit, -limit])
        return x

    quiet = (0.25 * torch.randn(*shape, generator=gen)).clamp(-limit / 2, limit / 2)
    return [(batch(), limit), (quiet, limit), (batch(), limit), (batch(), limit)]
# END GRADER


if __name__ == "__main__":
    print(serve(torch.compile(clip, fullgraph=True, backend="eager"), 2 * torch.randn(6, 5), 1.5))

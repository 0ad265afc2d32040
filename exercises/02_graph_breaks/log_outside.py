# Exercise log_outside: Compile the clipping step and keep its warning
# Edit this file, then check it with:  ./course check log_outside
# Stuck? ./course hint log_outside   Start over: ./course reset log_outside
"""Compile the clipping step into one graph and keep its warning.

`clip` limits a batch of activations to `[-limit, limit]` and logs a warning with the number of
values it clipped. The grader compiles `clip` with `fullgraph=True` and calls
`serve(compiled_clip, x, limit)`, comparing each call's output *and* the warnings it logs with
the code run without the compiler. You may change `clip` and `serve` together.
(`ignore_logging_functions` may gain logging functions, but it drops their messages.)

What the grader checks:
- `clip` compiles with `fullgraph=True` into one graph that serves every call.
- Every call of `serve` logs what it logs now through the `course.clip` logger: `clipped N values`, where N counts the values beyond `limit` (a value equal to `limit` is not clipped), 0 included.
- `serve` returns the batch clamped to `[-limit, limit]`.
- Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph` or `set_stance`.
"""

import logging

import torch

log = logging.getLogger("course.clip")


def clip(x, limit):
    # TODO: make clip compile with fullgraph=True, and keep the warning (serve may change too).
    count = (x.abs() > limit).sum()
    log.warning("clipped %d values", count)
    return x.clamp(-limit, limit)


def serve(step, x, limit):
    """The eager caller; `step` is the compiled clip."""
    return step(x, limit)


if __name__ == "__main__":
    print(serve(torch.compile(clip, fullgraph=True, backend="eager"), 2 * torch.randn(6, 5), 1.5))

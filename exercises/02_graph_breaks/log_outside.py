# Exercise log_outside: Log the warning from outside the compiled code
# Edit this file, then check it with:  ./course check log_outside
# Stuck? ./course hint log_outside   Start over: ./course reset log_outside
"""Compile the clipping step into one graph and keep its warning.

`clip` limits a batch of activations to `[-limit, limit]` and logs a warning with the number of
values it clipped. The grader compiles `clip` with `fullgraph=True` and calls
`serve(compiled_clip, x, limit)`, comparing each call's output *and* the warnings it logs with
the code run without the compiler. Make `clip` compile into one graph and keep every warning.
(`ignore_logging_functions` may gain logging functions, but it drops their messages.)
"""

import logging

import torch

log = logging.getLogger("course.clip")


def clip(x, limit):
    count = (x.abs() > limit).sum()
    log.warning("clipped %d values", count)  # TODO: a Logger call cannot be compiled; log it outside, and keep it
    return x.clamp(-limit, limit)


def serve(step, x, limit):
    """The eager caller; `step` is the compiled clip."""
    return step(x, limit)


if __name__ == "__main__":
    print(serve(torch.compile(clip, fullgraph=True, backend="eager"), 2 * torch.randn(6, 5), 1.5))

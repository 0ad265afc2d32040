"""Run a function with room on the interpreter's frame stack, so that deep tracing does not thrash it.

CPython (3.11 on) keeps the frames of Python calls on a per-thread stack made of chunks of 16 KiB,
each one ``mmap``-ed when a call does not fit in the current chunk and ``munmap``-ed as soon as
the call that needed it returns. Dynamo traces by recursion (a translator per inlined function,
dozens of Python frames per level), so a compile moves back and forth across a chunk boundary
over and over: a grading of ``guard_heavy_serving`` made 285,000 ``mmap``/``munmap`` pairs, each
with a page fault on a fresh page (a plain script compiling the same model, whose calls sat
elsewhere on the stack, made 20,000). Where the boundary falls depends only on how deep the
compile starts, so it is luck.

``with_room(fn, *args)`` calls ``fn`` from a frame of about 530 KiB (unused local slots): the
interpreter gives that frame a chunk of its own, rounded up to 1 MiB, and every call made
under it finds the rest of the chunk (about 490 KiB, some 60,000 slots) free, so a compile
never allocates a chunk unless its recursion goes deeper than that. Nothing else changes: the
function runs on the same thread with the same arguments. On another interpreter the frame is
only large.
"""

from __future__ import annotations

# Slots of the padding frame: 8 bytes each, so 66,000 make a frame of 528 KiB, which the
# interpreter (chunk sizes double from 16 KiB, plus a margin of 1,000 slots) places in a 1 MiB chunk.
PADDING_SLOTS = 66_000


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


_code = _call.__code__
_call.__code__ = _code.replace(co_varnames=_code.co_varnames + tuple(f"_room{i}" for i in range(PADDING_SLOTS)),
                               co_nlocals=_code.co_nlocals + PADDING_SLOTS)
del _code


def with_room(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, called from a frame that leaves the calls under it room on the stack."""
    return _call(fn, args, kwargs)

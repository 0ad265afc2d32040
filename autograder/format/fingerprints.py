"""Whether two runs' answers are the same computation, from their fingerprints alone.

A fingerprint (``sandbox.plain.fingerprint``) is a few numbers per leaf of a value: enough to tell
another computation from the same one without sending the value. The judge compares the fix's
answers on the speed check's own inputs with the reference's; the learner's process compares the
fix's answers on the timed passes' fresh inputs with the grader's own side's (``sandbox.kinds.core``).
Plain data only: no torch here.
"""

from __future__ import annotations

import math


def fingerprints_differ(expected: list, got: list, rtol: float = 1e-3, other: str = "the reference") -> str | None:
    """Why the fingerprints (``sandbox.plain.fingerprint``, one list per call) of the fix's outputs are
    not ``other``'s (the reference's, unless named), or None. Sums are compared relative to the leaf's total magnitude, and
    each picked value to its own size and to the leaf's mean magnitude: a compiled kernel may order
    and fuse its float arithmetic differently, a different computation moves them by far more."""
    if len(got) != len(expected):
        return f"{len(got)} timed call(s) returned, for {len(expected)}"
    for number, (want_leaves, got_leaves) in enumerate(zip(expected, got), start=1):
        if len(got_leaves) != len(want_leaves):
            return f"call {number} returned {len(got_leaves)} value(s), {other} {len(want_leaves)}"
        for want, have in zip(want_leaves, got_leaves):
            if "shape" in want:
                if have.get("shape") != want["shape"] or have.get("dtype") != want["dtype"]:
                    return (f"call {number} returned shape {tuple(have.get('shape') or ())} {have.get('dtype', 'no tensor')}, "
                            f"{other} {tuple(want['shape'])} {want['dtype']}")
                scale = max(want["abs"], 1e-30)
                mean = scale / max(math.prod(want["shape"]), 1)
                if (have["nans"] != want["nans"] or abs(have["sum"] - want["sum"]) > rtol * scale
                        or abs(have["abs"] - want["abs"]) > rtol * scale
                        or any(abs(a - b) > rtol * (abs(b) + mean) + 1e-6 for a, b in zip(have["picks"], want["picks"]))):
                    return f"call {number} returned values that differ from {other}'s"
            elif have != want and not ("value" in want and "value" in have and abs(have["value"] - want["value"]) <= rtol * (abs(want["value"]) + 1e-6)):
                return f"call {number} returned {have.get('value', have.get('type'))}, {other} {want.get('value', want.get('type'))}"
    return None

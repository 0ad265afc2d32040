# /// exercise
# format_version = 1
# title = "A traced helper that pops from its caller's list"
# syllabus = ["3.1.3"]
# entry = "step"
# starter_fails = ["queue_shrinks", "applies_next_update"]
# hints = [
#   "Run the file: eagerly the queue loses one update per step; with the traced helper it never shrinks, and every step applies the same update.",
#   "Tracing runs `apply_update` on a copy of the list, and the graph only reads the list's tensors at the positions the trace used. The pop itself is Python: it is not in the graph.",
#   "Keep the side effect in plain Python: the caller takes the update off the queue and the traced helper gets just that tensor (lesson section 3.1.3).",
#   "def apply_update(weights, update): return weights - 0.1 * update   — and in `step`: return apply_update(weights, pending.pop(0)).",
# ]
#
# [[checks]]
# kind = "nonstrict"
# name = "queue_shrinks"
# helper = "apply_update"
# observe = ["arguments"]
# points = 2
#
# [[checks]]
# kind = "nonstrict"
# name = "applies_next_update"
# helper = "apply_update"
# ops = ["mul"]
# points = 2
# ///
"""Take updates off the queue in plain Python, not in the traced helper.

`step(weights, pending)` applies the oldest update waiting in the list `pending` and removes it
from the list. The work is done by `apply_update`, which is traced non-strictly once and replayed
as a graph afterwards. `apply_update` pops from the list itself: that pop is Python, so it runs
only while tracing (on a copy of the list), and the graph keeps reading the same position.

The grader passes the same `pending` list to every call, traces `apply_update` on the first one,
and checks after each call both the result and how many updates are left, against the program
run eagerly. Make `apply_update` pure and do the pop in `step`.
"""

import torch


# BEGIN SOLUTION
def apply_update(weights, update):
    """One update step on the weights. Traced once, non-strictly."""
    return weights - 0.1 * update
# END SOLUTION
# BEGIN STARTER
# def apply_update(weights, pending):
#     """One update step on the weights. Traced once, non-strictly."""
#     update = pending.pop(0)  # TODO: mutates the caller's list, which a graph cannot do
#     return weights - 0.1 * update
# END STARTER


def step(weights, pending):
    """Apply the oldest pending update and remove it from `pending`."""
    # BEGIN SOLUTION
    return apply_update(weights, pending.pop(0))
    # END SOLUTION
    # BEGIN STARTER
    # return apply_update(weights, pending)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    pending = [torch.randn(4, generator=gen) for _ in range(6)]  # one list, shared by every call
    weights = torch.randn(4, generator=gen)
    return [(weights, pending) for _ in range(4)]
# END GRADER


if __name__ == "__main__":
    from torch.fx.experimental.proxy_tensor import make_fx

    eager_apply, traced = apply_update, []

    def apply_update_traced_once(*args):
        """What a non-strict tracer does: trace on the first call, replay the graph afterwards."""
        if not traced:
            traced.append(make_fx(eager_apply, tracing_mode="fake")(*args))
        return traced[0](*args)

    for name, helper in (("eager", eager_apply), ("traced", apply_update_traced_once)):
        apply_update = helper
        pending = [torch.full((4,), float(i)) for i in range(1, 5)]
        weights = torch.zeros(4)
        for _ in range(3):
            weights = step(weights, pending)
        print(f"{name:>6}: weights {weights.tolist()}, {len(pending)} update(s) left")

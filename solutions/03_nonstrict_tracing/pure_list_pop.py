# /// exercise
# format_version = 1
# title = "Drain an update queue through a traced step"
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
# points = 2
#
# [[requirements]]
# id = "applies_oldest"
# text = "Each call of `step` returns `weights` with the oldest pending update applied, `weights - 0.1 * update`, computed by the graph traced from `apply_update`."
# checks = ["applies_next_update"]
#
# [[requirements]]
# id = "removes_it"
# text = "After each call that update is gone from `pending`: the list holds one update fewer, the others in their order."
# checks = ["queue_shrinks"]
#
# [[fair]]
# name = "add_alpha"
# why = "the update written as torch.add with alpha=-0.1, so the graph holds no mul"
#
# [[fair]]
# name = "divide"
# why = "the step size written as a division by 10"
#
# [[fair]]
# name = "list_of_one"
# why = "the caller pops, and hands the helper a list holding just that update"
#
# [[wrong]]
# name = "pop_newest"
# breaks = "applies_oldest"
# fails = ["applies_next_update"]
# message = "Call 1 of \\d+: output differs from the reference"
#
# [[wrong]]
# name = "applied_beside"
# breaks = "applies_oldest"
# fails = ["applies_next_update"]
# message = "When the grader changed what the graph traced from `apply_update` returns, the output of call\\(s\\) 1, 2"
#
# [[wrong]]
# name = "peek_only"
# breaks = "removes_it"
# fails = ["queue_shrinks"]
# message = "Call 1 of \\d+: after the call, the list `pending` holds \\d+ item\\(s\\), where eager Python leaves \\d+"
#
# [[wrong]]
# name = "pop_from_copy"
# breaks = "removes_it"
# fails = ["queue_shrinks"]
# message = "the list `pending` holds \\d+ item\\(s\\), where eager Python leaves \\d+"
# ///
"""Apply the queued updates one per step, although the step is traced.

`step(weights, pending)` applies the oldest update waiting in the list `pending` and removes it
from the list. The work is done by `apply_update`, which is traced non-strictly once and replayed
as a graph afterwards. Traced, the queue never gets shorter, and every step applies the same
update.

The grader passes the same `pending` list to every call, traces `apply_update` on the first one,
and checks after each call both the result and the updates left, against the program run
eagerly.
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
#     # TODO: run eagerly, the queue shrinks by one per step; traced, it never does. Keep this function traceable.
#     update = pending.pop(0)
#     return weights - 0.1 * update
# END STARTER
# BEGIN FAIR add_alpha
# def apply_update(weights, update):
#     """One update step on the weights. Traced once, non-strictly."""
#     return torch.add(weights, update, alpha=-0.1)
# END FAIR
# BEGIN FAIR divide
# def apply_update(weights, update):
#     """One update step on the weights. Traced once, non-strictly."""
#     return weights - update / 10
# END FAIR
# BEGIN FAIR list_of_one
# def apply_update(weights, updates):
#     """One update step on the weights. Traced once, non-strictly."""
#     return weights - 0.1 * updates[0]
# END FAIR
# BEGIN WRONG peek_only
# def apply_update(weights, pending):
#     """One update step on the weights. Traced once, non-strictly."""
#     return weights - 0.1 * pending[0]  # no pop in the traced function any more
# END WRONG
# BEGIN WRONG pop_from_copy
# def apply_update(weights, pending):
#     """One update step on the weights. Traced once, non-strictly."""
#     update = pending.pop(0)
#     return weights - 0.1 * update
# END WRONG


def step(weights, pending):
    """Apply the oldest pending update and remove it from `pending`."""
    # BEGIN SOLUTION
    return apply_update(weights, pending.pop(0))
    # END SOLUTION
    # BEGIN STARTER
    # return apply_update(weights, pending)
    # END STARTER
    # BEGIN FAIR list_of_one
    # oldest = pending.pop(0)
    # return apply_update(weights, [oldest])
    # END FAIR
    # BEGIN WRONG applied_beside
    # update = pending.pop(0)
    # apply_update(weights, update)  # traced and replayed, its result unused
    # return weights - 0.1 * update
    # END WRONG
    # BEGIN WRONG pop_newest
    # return apply_update(weights, pending.pop())
    # END WRONG
    # BEGIN WRONG peek_only
    # return apply_update(weights, pending)
    # END WRONG
    # BEGIN WRONG pop_from_copy
    # return apply_update(weights, list(pending))  # the helper may pop from its own copy
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """One list of 5 to 8 pending updates shared by every call (so that each call sees what the last
    one left), 3 calls or more, and the weights' width drawn per seed."""
    width = int(torch.randint(3, 9, (1,), generator=gen))
    queued = int(torch.randint(5, 9, (1,), generator=gen))
    pending = [torch.randn(width, generator=gen) for _ in range(queued)]
    weights = torch.randn(width, generator=gen)
    steps = int(torch.randint(3, queued, (1,), generator=gen))
    return [(weights, pending) for _ in range(steps)]
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

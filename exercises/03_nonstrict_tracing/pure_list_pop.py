# Exercise pure_list_pop: Drain an update queue through a traced step
# Edit this file, then check it with:  ./course check pure_list_pop
# Stuck? ./course hint pure_list_pop   Start over: ./course reset pure_list_pop
"""Apply the queued updates one per step, although the step is traced.

`step(weights, pending)` applies the oldest update waiting in the list `pending` and removes it
from the list. The work is done by `apply_update`, which is traced non-strictly once and replayed
as a graph afterwards. Traced, the queue never gets shorter, and every step applies the same
update.

The grader passes the same `pending` list to every call, traces `apply_update` on the first one,
and checks after each call both the result and the updates left, against the program run
eagerly.

What the grader checks:
- Each call of `step` returns `weights` with the oldest pending update applied, `weights - 0.1 * update`, computed by the graph traced from `apply_update`.
- After each call that update is gone from `pending`: the list holds one update fewer, the others in their order.
"""

import torch


def apply_update(weights, pending):
    """One update step on the weights. Traced once, non-strictly."""
    # TODO: run eagerly, the queue shrinks by one per step; traced, it never does. Keep this function traceable.
    update = pending.pop(0)
    return weights - 0.1 * update


def step(weights, pending):
    """Apply the oldest pending update and remove it from `pending`."""
    return apply_update(weights, pending)


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

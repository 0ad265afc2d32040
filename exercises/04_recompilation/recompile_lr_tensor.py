# Exercise recompile_lr_tensor: Step a scheduled optimizer without recompiling
# Edit this file, then check it with:  ./course check recompile_lr_tensor
# Stuck? ./course hint recompile_lr_tensor   Start over: ./course reset recompile_lr_tensor
"""Step the optimizer on a learning-rate schedule without recompiling.

`make_update()` builds a small model, an Adam optimizer and an exponential learning-rate
schedule, and returns `update(grads)`: install the gradients, step the optimizer, step the
schedule, return the new parameters. The grader compiles `update` and calls it for ten steps or
more. Compiled, a later step compiles the whole optimizer step again, though nothing about the
model or the gradients has changed.

What the grader checks:
- The compiled step never recompiles while the scheduler lowers the learning rate.
- Every step runs compiled code.
- After every step the parameters are those of an eager run: Adam at a learning rate of 0.01, multiplied by 0.9 after each step.
"""

import torch


def make_update():
    # TODO: find what the recompile is about, and make the compiled step keep its first graph.
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    params = list(model.parameters())
    optimizer = torch.optim.Adam(params, lr=0.01)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    def update(grads):
        for p, g in zip(params, grads):
            p.grad = g
        optimizer.step()
        scheduler.step()
        return [p.detach().clone() for p in params]

    return update


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    update = make_update()
    # backend="eager" runs the captured graphs as they are, without generating code: the trace, its
    # guards and recompiles are Dynamo's, as with the default backend (Inductor, which may add a
    # few guards of its own while it generates code).
    compiled = torch.compile(update, backend="eager")
    for _ in range(10):
        compiled([torch.randn(16, 8), torch.randn(16), torch.randn(1, 16), torch.randn(1)])
    print("10 optimizer steps done")

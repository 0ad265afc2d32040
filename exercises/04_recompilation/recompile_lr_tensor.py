# Exercise recompile_lr_tensor: The learning-rate scheduler recompiles the optimizer step
# Edit this file, then check it with:  ./course check recompile_lr_tensor
# Stuck? ./course hint recompile_lr_tensor   Start over: ./course reset recompile_lr_tensor
"""Step the optimizer without recompiling when the learning rate changes.

`make_update()` builds a small model, an Adam optimizer and an exponential learning-rate
schedule, and returns `update(grads)`: install the gradients, step the optimizer, step the
schedule, return the new parameters. The grader compiles `update` and calls it for ten steps.
Each step ends with `scheduler.step()`, which gives the optimizer a new learning rate; the
optimizer holds it as a Python float, so the next compiled step fails a guard on its value and
compiles again. Make the ten steps run without a single recompile, with the same parameters
after every step as an eager run.
"""

import torch


def make_update():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    params = list(model.parameters())
    optimizer = torch.optim.Adam(params, lr=0.01)  # TODO: a float learning rate is guarded on its value
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
    compiled = torch.compile(update, backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    for _ in range(10):
        compiled([torch.randn(16, 8), torch.randn(16), torch.randn(1, 16), torch.randn(1)])
    print("10 optimizer steps done")

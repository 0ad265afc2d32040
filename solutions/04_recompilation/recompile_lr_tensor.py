# /// exercise
# format_version = 1
# title = "The learning-rate scheduler recompiles the optimizer step"
# syllabus = ["4.2"]
# entry = "make_update"
# factory = true
# starter_fails = ["recompiles"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles and read the failing guard: it is about `param_groups[0]['lr']`.",
#   "Adam reads its learning rate as a Python float, and Dynamo guards a Python float on its value. The scheduler changes it after every step, so the next step fails that guard (on torch 2.13 only once: the recompile makes the float dynamic).",
#   "A tensor is guarded on its metadata, not its value. Give the optimizer a tensor learning rate; the scheduler then updates that tensor in place (lesson section 4.2).",
#   "optimizer = torch.optim.Adam(params, lr=torch.tensor(0.01))",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 0
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-4
# atol = 1e-6
# points = 2
# ///
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
    # BEGIN SOLUTION
    optimizer = torch.optim.Adam(params, lr=torch.tensor(0.01))
    # END SOLUTION
    # BEGIN STARTER
    # optimizer = torch.optim.Adam(params, lr=0.01)  # TODO: a float learning rate is guarded on its value
    # END STARTER
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    def update(grads):
        for p, g in zip(params, grads):
            p.grad = g
        optimizer.step()
        scheduler.step()
        return [p.detach().clone() for p in params]

    return update


# BEGIN GRADER
def calls(gen):
    shapes = [(16, 8), (16,), (1, 16), (1,)]
    return [([torch.randn(shape, generator=gen) for shape in shapes],) for _ in range(10)]
# END GRADER


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    update = make_update()
    compiled = torch.compile(update, backend="eager")  # Dynamo only: graphs, guards and recompiles are the same
    for _ in range(10):
        compiled([torch.randn(16, 8), torch.randn(16), torch.randn(1, 16), torch.randn(1)])
    print("10 optimizer steps done")

# /// exercise
# format_version = 1
# title = "Step a scheduled optimizer without recompiling"
# syllabus = ["4.2"]
# entry = "make_update"
# factory = true
# starter_fails = ["recompiles"]
# hints = [
#   "Run the file with TORCH_LOGS=recompiles and read the failing guard: it is about `param_groups[0]['lr']`.",
#   "Adam reads its learning rate as a Python float, and Dynamo guards a Python float on its value. The scheduler changes it after every step, so the next step fails that guard (on torch 2.13 only once: the recompile makes the float dynamic, but that one recompile traces the whole Adam step again).",
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
#
# [[requirements]]
# id = "no_recompile"
# text = "The compiled step never recompiles while the scheduler lowers the learning rate."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every step runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_training"
# text = "After every step the parameters are those of an eager run: Adam at a learning rate of 0.01, multiplied by 0.9 after each step."
# checks = ["correct"]
#
# [[fair]]
# name = "full"
# why = "the tensor learning rate made with torch.full"
#
# [[fair]]
# name = "set_after"
# why = "the optimizer built with the float, its param group given a tensor before the scheduler is made"
#
# [[wrong]]
# name = "tensor_gamma"
# breaks = "no_recompile"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 0 allowed.*lr"
#
# [[wrong]]
# name = "schedule_first"
# breaks = "no_recompile"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 0 allowed"
#
# [[wrong]]
# name = "hidden_step"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "no_schedule"
# breaks = "same_training"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Step the optimizer on a learning-rate schedule without recompiling.

`make_update()` builds a small model, an Adam optimizer and an exponential learning-rate
schedule, and returns `update(grads)`: install the gradients, step the optimizer, step the
schedule, return the new parameters. The grader compiles `update` and calls it for ten steps or
more. Compiled, a later step compiles the whole optimizer step again, though nothing about the
model or the gradients has changed.
"""

import torch


def make_update():
    # BEGIN STARTER
    # # TODO: find what the recompile is about, and make the compiled step keep its first graph.
    # END STARTER
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    params = list(model.parameters())
    # BEGIN SOLUTION
    optimizer = torch.optim.Adam(params, lr=torch.tensor(0.01))
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    # END SOLUTION
    # BEGIN STARTER
    # optimizer = torch.optim.Adam(params, lr=0.01)
    # scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    # END STARTER
    # BEGIN FAIR full
    # optimizer = torch.optim.Adam(params, lr=torch.full((), 0.01))
    # scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    # END FAIR
    # BEGIN FAIR set_after
    # optimizer = torch.optim.Adam(params, lr=0.01)
    # for group in optimizer.param_groups:
    #     group["lr"] = torch.tensor(group["lr"])
    # scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    # END FAIR
    # BEGIN WRONG tensor_gamma
    # optimizer = torch.optim.Adam(params, lr=0.01)
    # scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=torch.tensor(0.9))
    # END WRONG
    # BEGIN WRONG schedule_first
    # optimizer = torch.optim.Adam(params, lr=0.01)
    # scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    # END WRONG

    # BEGIN SOLUTION
    def update(grads):
        for p, g in zip(params, grads):
            p.grad = g
        optimizer.step()
        scheduler.step()
        return [p.detach().clone() for p in params]
    # END SOLUTION
    # BEGIN STARTER
    # def update(grads):
    #     for p, g in zip(params, grads):
    #         p.grad = g
    #     optimizer.step()
    #     scheduler.step()
    #     return [p.detach().clone() for p in params]
    # END STARTER
    # BEGIN WRONG schedule_first
    # def update(grads):
    #     for p, g in zip(params, grads):
    #         p.grad = g
    #     scheduler.step()  # the rate is set before the step that uses it
    #     optimizer.step()
    #     return [p.detach().clone() for p in params]
    # END WRONG
    # BEGIN WRONG hidden_step
    # @torch.compiler.disable
    # def step_eagerly(grads):
    #     for p, g in zip(params, grads):
    #         p.grad = g
    #     optimizer.step()
    #     scheduler.step()
    #     return [p.detach().clone() for p in params]
    #
    # def update(grads):
    #     return step_eagerly(grads)
    # END WRONG
    # BEGIN WRONG no_schedule
    # def update(grads):
    #     for p, g in zip(params, grads):
    #         p.grad = g
    #     optimizer.step()  # no scheduler step: nothing changes the rate, nothing recompiles
    #     return [p.detach().clone() for p in params]
    # END WRONG

    return update


# BEGIN GRADER
def calls(gen):
    """Ten to fourteen steps (drawn per seed), each with fresh gradients for the four parameters."""
    shapes = [(16, 8), (16,), (1, 16), (1,)]
    steps = int(torch.randint(10, 15, (1,), generator=gen))
    return [([torch.randn(shape, generator=gen) for shape in shapes],) for _ in range(steps)]
# END GRADER


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

# Exercise exp_lr_decay: Decay a learning rate every step without recompiling every step
# Edit this file, then check it with:  ./course check exp_lr_decay
# Stuck? ./course hint exp_lr_decay   Start over: ./course reset exp_lr_decay
"""Keep a decaying learning rate from recompiling the optimizer step on every step.

`MomentumSGD` is the update step of a training loop: given the gradient of a 768 x 1024 weight, it
adds weight decay, updates the momentum and moves the weight by a learning rate that decays
exponentially with the epochs trained (counted in fractions of an epoch, ten steps an epoch). The
grader builds it with `make_optimizer()`, compiles it with Inductor and calls it for twelve to
sixteen steps. Compiled, it recompiles on every step until the recompile limit, and from then on
every step runs in plain Python: the three passes over memory that one compiled kernel would fuse
run one after another, as eagerly.

What the grader checks:
- The compiled step never recompiles while the learning rate decays.
- Every step runs compiled code.
- After every step the weights are those of the starting code run eagerly: momentum 0.9, weight decay 1e-4, a learning rate of 0.1 * exp(-0.5 * epoch), the epoch advancing by 1/10 a step.
- A pass of the grader's steps, compiled with Inductor, is at least 1.6x faster than the starting code compiled the same way, and at least 1.6x faster than your code run eagerly (on a CPU and on a CUDA GPU alike).
"""

import math

import torch

BASE_LR = 0.1
DECAY = 0.5  # per epoch
MOMENTUM = 0.9
WEIGHT_DECAY = 1e-4
STEPS_PER_EPOCH = 10
SHAPE = (768, 1024)


class MomentumSGD(torch.nn.Module):
    def __init__(self, weight):
        # TODO: find what every recompile is about, and make the step compile once.
        super().__init__()
        self.register_buffer("weight", weight.clone())
        self.register_buffer("velocity", torch.zeros_like(weight))
        self.epoch = 0.0  # epochs trained, in fractions of an epoch

    def forward(self, grad):
        lr = BASE_LR * math.exp(-DECAY * self.epoch)
        self.velocity.mul_(MOMENTUM).add_(grad + WEIGHT_DECAY * self.weight)
        self.weight.add_(self.velocity, alpha=-lr)
        self.epoch += 1 / STEPS_PER_EPOCH
        return self.weight.clone()


def make_optimizer():
    torch.manual_seed(0)
    return MomentumSGD(torch.randn(SHAPE))


if __name__ == "__main__":
    import torch._logging

    torch._logging.set_logs(recompiles=True)
    step = torch.compile(make_optimizer())
    for _ in range(12):
        step(torch.randn(SHAPE))
    print("12 optimizer steps done")

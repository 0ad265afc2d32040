# /// exercise
# format_version = 1
# title = "Keep a counting module to one recompile"
# syllabus = ["4.3"]
# entry = "make_model"
# factory = true
# allow_config = ["allow_unspec_int_on_nn_module"]
# starter_fails = ["recompiles", "compiled_calls"]  # and its speed check, which runs only once the structure passes (docs/MEASUREMENTS.md)
# hints = [
#   "Run the file with TORCH_LOGS=recompiles: the failing guard is `self.seen == N`, a new N on every call, until the recompile limit sends every later call to plain Python.",
#   "Dynamo treats integer attributes of an nn.Module as constants: each value gets its own graph. Automatic dynamic shapes do not apply to them by default.",
#   "Either keep the count in a tensor buffer (guarded on metadata, not value, as BatchNorm does with num_batches_tracked), or set torch._dynamo.config.allow_unspec_int_on_nn_module = True (lesson section 4.3). Hiding the count from the compiler (torch.compiler.disable) stops the recompiles but leaves its arithmetic eager: no faster than the starter.",
#   "In __init__: self.register_buffer(\"seen\", torch.tensor(0))   — the forward stays as it is.",
# ]
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 2
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "speed"
# name = "fast"
# against = "starter"
# min_ratio = { cpu = 2.0, cuda = 2.0 }
# eager_min_ratio = { cpu = 2.0, cuda = 2.0 }
# warmup = 3
# repeats = 15
# points = 2
#
# [[requirements]]
# id = "few_graphs"
# text = "The compiled module recompiles at most once over all the calls."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "runs_compiled"
# text = "Every call runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_statistics"
# text = "Each call returns its frame standardised by the running mean and variance of every frame seen so far (each frame counted once) and clipped to ±5, as now."
# checks = ["correct"]
#
# [[requirements]]
# id = "fast"
# text = "A pass of the grader's calls, the module compiled with Inductor, is at least 2x faster than the starting code compiled the same way, and at least 2x faster than your code run eagerly (on a CPU and on a CUDA GPU alike)."
# checks = ["fast"]
#
# [[fair]]
# name = "tensor_attribute"
# why = "the count in a plain tensor attribute, not a registered buffer"
#
# [[fair]]
# name = "float_count"
# why = "the count as a Python float: on torch 2.13 floats are not specialised, so it recompiles once (lesson 4.2)"
#
# [[fair]]
# name = "unspec_flag"
# why = "the int kept, and torch._dynamo.config.allow_unspec_int_on_nn_module turned on"
#
# [[wrong]]
# name = "list_counter"
# breaks = "few_graphs"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over \\d+ call\\(s\\); at most 1 allowed"
#
# [[wrong]]
# name = "dict_counter"
# breaks = "runs_compiled"
# fails = ["compiled_calls"]
# message = "\\d+ of \\d+ calls ran compiled code"
#
# [[wrong]]
# name = "moving_average"
# breaks = "same_statistics"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "update_disabled"
# breaks = "fast"
# fails = ["fast"]
# message = "than the compiled starter \\(needs 2.0x faster on cpu\\)"
# ///
"""Stop `RunningNormalizer` from recompiling as it counts its frames.

`RunningNormalizer` standardises a stream of sensor frames (768 x 1024 readings each), as a
training loop normalises its inputs: each reading by the running mean and variance of that reading
over every frame seen so far (Welford's update, which counts the frames), clipped to ±5. The grader
builds the module with `make_model()`, compiles it with Inductor and calls it on a stream of
frames. Compiled, it recompiles on every call until it reaches the recompile limit, and from then
on every call runs in plain Python: after paying for eight compiles, the loop runs no faster than
eager code, where one compiled kernel would do the whole update in one pass over memory.
"""

import torch

# BEGIN FAIR unspec_flag
# import torch._dynamo
#
# torch._dynamo.config.allow_unspec_int_on_nn_module = True
# END FAIR

CLIP = 5.0
EPS = 1e-5
FRAME = (768, 1024)
# BEGIN WRONG moving_average
# MOMENTUM = 0.1  # no count at all: nothing to recompile on
# END WRONG


class RunningNormalizer(torch.nn.Module):
    def __init__(self, shape):
        # BEGIN STARTER
        # # TODO: find what every recompile is about, and keep this module to one recompile at most.
        # END STARTER
        super().__init__()
        self.register_buffer("mean", torch.zeros(shape))
        self.register_buffer("m2", torch.zeros(shape))  # per reading, the sum of squared deviations
        # BEGIN SOLUTION
        self.register_buffer("seen", torch.tensor(0))
        # END SOLUTION
        # BEGIN STARTER
        # self.seen = 0
        # END STARTER
        # BEGIN FAIR tensor_attribute
        # self.seen = torch.zeros((), dtype=torch.long)
        # END FAIR
        # BEGIN FAIR float_count
        # self.seen = 0.0
        # END FAIR
        # BEGIN FAIR unspec_flag
        # self.seen = 0
        # END FAIR
        # BEGIN WRONG list_counter
        # self.seen = [0]  # a mutable box for the count
        # END WRONG
        # BEGIN WRONG dict_counter
        # self.stats = {"seen": 0}
        # END WRONG
        # BEGIN WRONG update_disabled
        # self.seen = 0
        # END WRONG

    # BEGIN WRONG update_disabled
    # @torch.compiler.disable  # the count never reaches Dynamo, so nothing recompiles on it
    # def update(self, x):
    #     self.seen += 1
    #     delta = x - self.mean
    #     self.mean += delta / self.seen
    #     self.m2 += delta * (x - self.mean)
    #     return self.m2 / self.seen
    #
    # END WRONG
    def forward(self, x):
        # BEGIN SOLUTION
        self.seen += 1
        delta = x - self.mean
        self.mean += delta / self.seen
        self.m2 += delta * (x - self.mean)
        scale = torch.rsqrt(self.m2 / self.seen + EPS)
        # END SOLUTION
        # BEGIN STARTER
        # self.seen += 1
        # delta = x - self.mean
        # self.mean += delta / self.seen
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.seen + EPS)
        # END STARTER
        # BEGIN FAIR tensor_attribute
        # self.seen += 1
        # delta = x - self.mean
        # self.mean += delta / self.seen
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.seen + EPS)
        # END FAIR
        # BEGIN FAIR float_count
        # self.seen += 1
        # delta = x - self.mean
        # self.mean += delta / self.seen
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.seen + EPS)
        # END FAIR
        # BEGIN FAIR unspec_flag
        # self.seen += 1
        # delta = x - self.mean
        # self.mean += delta / self.seen
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.seen + EPS)
        # END FAIR
        # BEGIN WRONG list_counter
        # self.seen[0] += 1
        # delta = x - self.mean
        # self.mean += delta / self.seen[0]
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.seen[0] + EPS)
        # END WRONG
        # BEGIN WRONG dict_counter
        # self.stats["seen"] += 1
        # delta = x - self.mean
        # self.mean += delta / self.stats["seen"]
        # self.m2 += delta * (x - self.mean)
        # scale = torch.rsqrt(self.m2 / self.stats["seen"] + EPS)
        # END WRONG
        # BEGIN WRONG moving_average
        # delta = x - self.mean
        # self.mean += delta * MOMENTUM
        # self.m2 += (delta * (x - self.mean) - self.m2) * MOMENTUM  # a moving variance, not a sum
        # scale = torch.rsqrt(self.m2 + EPS)
        # END WRONG
        # BEGIN WRONG update_disabled
        # scale = torch.rsqrt(self.update(x) + EPS)
        # END WRONG
        return torch.clamp((x - self.mean) * scale, -CLIP, CLIP)


def make_model():
    return RunningNormalizer(FRAME)


# BEGIN GRADER
def calls(gen):
    """Twelve to sixteen frames (more than the recompile limit), each reading with a level of its own,
    the frames' noise and drift drawn per seed. 3 MB a frame: the module's state and a frame (12 MB)
    outgrow the CPU's per-core caches, so a call costs its passes over memory, and sixteen frames
    (48 MB) stay within the grader's channel (64 MB a message)."""
    count = int(torch.randint(12, 17, (1,), generator=gen))
    noise = 0.5 + 2.0 * float(torch.rand(1, generator=gen))
    level = 3 * torch.randn(FRAME, generator=gen)
    drift = torch.randn(count, generator=gen)
    return [(level + drift[i] + noise * torch.randn(FRAME, generator=gen),) for i in range(count)]
# END GRADER


if __name__ == "__main__":
    import time

    import torch._logging

    torch._logging.set_logs(recompiles=True)
    frames = [(torch.randn(FRAME) + i,) for i in range(12)]
    # Inductor, as the grader compiles it: the first pass pays for every compile it needs.
    for name, model in (("eager", make_model()), ("compiled", torch.compile(make_model()))):
        with torch.no_grad():
            started = time.perf_counter()
            for frame in frames:
                model(*frame)
            first = time.perf_counter() - started
            started = time.perf_counter()
            for frame in frames:
                model(*frame)
        print(f"{name}: first pass {first:.2f} s, second pass {1000 * (time.perf_counter() - started):.0f} ms")

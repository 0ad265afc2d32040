# /// exercise
# format_version = 1
# title = "Monitor a layer tower without running it eagerly"
# syllabus = ["2.5.5.1"]
# entry = "make_tower"
# factory = true
# # The grader builds the tower, compiles it, and calls serve(compiled_tower, x): eager code around it.
# driver = "serve"
# starter_fails = ["skips"]
# hints = [
#   "Run the file: the answers are right and nothing fails, but the report says `forward` is a skipped frame: the tower runs without its compiled graph.",
#   "Lesson section 2.5.5.1: a graph break inside a loop makes Dynamo give up on the whole frame. What in the loop needs a Python number?",
#   "Keep the monitoring in the tensor world: one dead fraction per layer as a 0-d tensor, stacked after the loop. The numbers may leave the tensor world in `serve`, which is eager, if they have to.",
#   "In forward: `dead.append((x == 0).float().mean())` and `return x, torch.stack(dead)`.",
# ]
#
# [[checks]]
# kind = "skipped_frames"
# name = "skips"
# ops = ["relu"]
# points = 2
#
# [[checks]]
# kind = "graph_breaks"
# max = 0
# points = 1
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "no_dodge"
# forbid = ["disable", "allow_in_graph", "is_compiling", "set_stance"]
# points = 0  # a gate: it fails the grade, it awards nothing
#
# [[checks]]
# kind = "speed"
# name = "fast"
# against = "starter"
# min_ratio = { cpu = 2.0, cuda = 2.0 }
# eager_min_ratio = { cpu = 1.5, cuda = 1.5 }
# warmup = 3
# repeats = 15
# points = 2
#
# [[requirements]]
# id = "compiled"
# text = "The tower's `forward` compiles with no graph break: no frame of it is skipped, and its layers run inside one graph."
# checks = ["skips", "graph_breaks"]
#
# [[requirements]]
# id = "same_stats"
# text = "`serve` returns the tower's output and, per layer, the fraction of its activations that are exactly zero after the ReLU (a float32 tensor of one value per layer), as now."
# checks = ["correct"]
#
# [[requirements]]
# id = "fast"
# text = "A pass of the grader's calls through `serve`, the tower compiled with Inductor, is at least 2x faster than the starting code compiled the same way, and at least 1.5x faster than your code run eagerly (on a CPU and on a CUDA GPU alike)."
# checks = ["fast"]
#
# [[requirements]]
# id = "nothing_hidden"
# text = "Nothing is hidden from the compiler: no `torch.compiler.disable`, `allow_in_graph`, `is_compiling()` or stance."
# checks = ["no_dodge"]
#
# [[fair]]
# name = "live_share"
# why = "measures the share of live units with sign() (0 or 1 after the ReLU) and reports one minus it"
#
# [[fair]]
# name = "count_nonzero"
# why = "counts the live units with count_nonzero and turns the count into a dead fraction"
#
# [[wrong]]
# name = "tolist_at_end"
# breaks = "compiled"
# fails = ["graph_breaks"]
# message = "1 graph break\\(s\\), at most 0 allowed"
#
# [[wrong]]
# name = "negative_units"
# breaks = "same_stats"
# fails = ["correct"]
# message = "output\\[1\\] differs from the reference"
#
# [[wrong]]
# name = "stats_in_serve"
# breaks = "fast"
# fails = ["fast"]
# message = "than the compiled starter \\(needs 2.0x faster on cpu\\)"
#
# [[wrong]]
# name = "disabled_stat"
# breaks = "nothing_hidden"
# fails = ["no_dodge"]
# message = "torch\\.compiler\\.disable"
# ///
"""Monitor a tower of layers while it serves, and keep it compiled.

`Tower` is a stack of `DEPTH` gates (a per-channel gain and shift, then a ReLU). For monitoring, it also reports, per layer, the
fraction of units that are dead (exactly zero after the ReLU) on the batch. The grader builds it
with `make_tower()`, compiles it with the default `fullgraph=False`, and calls `serve(tower, x)` on
small serving batches, timing a pass of its calls with Inductor. The answers are right, but the
monitoring costs the tower its compiled graph: it is no faster compiled than not.
"""

import torch

DEPTH = 12
WIDTH = 256


# BEGIN WRONG disabled_stat
# @torch.compiler.disable
# def dead_fraction(x):
#     return (x == 0).float().mean().item()
#
#
# END WRONG
class Gate(torch.nn.Module):
    """A per-channel gain and shift, then a ReLU."""

    def __init__(self):
        super().__init__()
        self.gain = torch.nn.Parameter(1 + 0.3 * torch.randn(WIDTH))
        self.shift = torch.nn.Parameter(0.2 * torch.randn(WIDTH))

    def forward(self, x):
        return torch.relu(x * self.gain + self.shift)


class Tower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Gate() for _ in range(DEPTH)])

    def forward(self, x):
        # BEGIN SOLUTION
        dead = []
        for layer in self.layers:
            x = layer(x)
            dead.append((x == 0).float().mean())
        return x, torch.stack(dead)
        # END SOLUTION
        # BEGIN STARTER
        # dead = []
        # for layer in self.layers:
        #     x = layer(x)
        #     dead.append((x == 0).float().mean().item())  # TODO: this tower runs no faster compiled; why?
        # return x, torch.tensor(dead)
        # END STARTER
        # BEGIN FAIR live_share
        # live = []
        # for layer in self.layers:
        #     x = layer(x)
        #     live.append(x.sign().mean())  # after the ReLU every unit is 0 or positive: sign() is 0 or 1
        # return x, 1 - torch.stack(live)
        # END FAIR
        # BEGIN FAIR count_nonzero
        # live = []
        # for layer in self.layers:
        #     x = layer(x)
        #     live.append(torch.count_nonzero(x))
        # return x, 1 - torch.stack(live).float() / x.numel()
        # END FAIR
        # BEGIN WRONG tolist_at_end
        # dead = []
        # for layer in self.layers:
        #     x = layer(x)
        #     dead.append((x == 0).float().mean())
        # return x, torch.tensor(torch.stack(dead).tolist())
        # END WRONG
        # BEGIN WRONG negative_units
        # dead = []
        # for layer in self.layers:
        #     x = layer(x)
        #     dead.append((x < 0).float().mean())
        # return x, torch.stack(dead)
        # END WRONG
        # BEGIN WRONG stats_in_serve
        # activations = []
        # for layer in self.layers:
        #     x = layer(x)
        #     activations.append(x)
        # return x, activations
        # END WRONG
        # BEGIN WRONG disabled_stat
        # dead = []
        # for layer in self.layers:
        #     x = layer(x)
        #     dead.append(dead_fraction(x))
        # return x, torch.tensor(dead)
        # END WRONG


def make_tower():
    return Tower()


def serve(tower, x):
    """The eager caller; `tower` is the compiled tower."""
    # BEGIN SOLUTION
    return tower(x)
    # END SOLUTION
    # BEGIN STARTER
    # return tower(x)
    # END STARTER
    # BEGIN WRONG stats_in_serve
    # out, activations = tower(x)
    # return out, torch.stack([(a == 0).float().mean() for a in activations])
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """Serving batches of one size (a steady-state server), scaled per seed so that each layer has
    a different share of dead units."""
    scale = 0.5 + float(torch.rand(1, generator=gen))
    return [(scale * torch.randn(64, WIDTH, generator=gen),) for _ in range(4)]
# END GRADER


if __name__ == "__main__":
    out, dead = serve(torch.compile(make_tower()), torch.randn(64, WIDTH))
    print("dead fraction per layer:", [round(d, 3) for d in dead.tolist()])

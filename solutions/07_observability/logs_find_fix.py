# /// exercise
# format_version = 1
# title = "Use the logs to find what makes a scoring loop break and recompile"
# syllabus = ["7.2", "7.1"]
# entry = "make_scorer"
# factory = true
# driver = "run"
# starter_fails = ["graph_breaks", "recompiles"]
# hints = [
#   "Run the file: it scores 12 batches and prints how many graphs, breaks and recompiles that cost. Then run it with TORCH_LOGS=graph_breaks,recompiles (or TORCH_TRACE and tlparse) to see where and why.",
#   "The graph-break log names the line and says `Unsupported Tensor.item() call`: a Python number read out of a tensor, then compared in Python. The recompile log shows a guard on an arithmetic expression of `step`, a new value every call: Python math on an int specialises it.",
#   "Keep both computations in tensors: the running peak with torch.maximum into the buffer (no .item(), no Python `if`), and the decay with torch.exp on a tensor. The driver `run` may hand the model the step as a tensor.",
#   "In `_track_peak`: `self.peak.copy_(torch.maximum(self.peak, h.abs().amax()))`. In `forward`: `decay = torch.exp(-step / self.half_life)` with `step` a tensor, which `run` makes: `model(batch, torch.tensor(float(step)))`.",
# ]
#
# [[checks]]
# kind = "graph_breaks"
# max = 0
# points = 2
#
# [[checks]]
# kind = "recompiles"
# max = 1
# points = 2
#
# [[checks]]
# kind = "compiled_calls"
# points = 1
#
# [[checks]]
# kind = "correct"
# rtol = 1e-4
# atol = 1e-5
# points = 1
#
# [[requirements]]
# id = "no_break"
# text = "Scoring the 12 batches causes no graph break."
# checks = ["graph_breaks"]
#
# [[requirements]]
# id = "few_recompiles"
# text = "Over the 12 steps Dynamo recompiles at most once."
# checks = ["recompiles"]
#
# [[requirements]]
# id = "compiled"
# text = "Every call of the model runs compiled code."
# checks = ["compiled_calls"]
#
# [[requirements]]
# id = "same_scores"
# text = "Every step returns the same predicted classes, evidence and running peak (the largest absolute activation seen so far, negative ones included) as before."
# checks = ["correct"]
#
# [[fair]]
# name = "where_and_float_tensor"
# why = "the peak kept with torch.where, the step handed over as a float32 tensor made with torch.full"
#
# [[fair]]
# name = "clamp_and_method_exp"
# why = "the peak kept with an in-place clamp_(min=...), the decay as Tensor.exp() of a step made with torch.as_tensor"
#
# [[wrong]]
# name = "only_the_decay"
# breaks = "no_break"
# fails = ["graph_breaks"]
# message = "Unsupported Tensor.item\\(\\) call"
#
# [[wrong]]
# name = "only_the_peak"
# breaks = "few_recompiles"
# fails = ["recompiles"]
# message = "recompile\\(s\\) over 12 call\\(s\\); at most 1 allowed.*step"
#
# [[wrong]]
# name = "forward_disabled"
# breaks = "compiled"
# fails = ["compiled_calls"]
# message = "0 of 12 calls ran compiled code"
#
# [[wrong]]
# name = "batch_peak_only"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
#
# [[wrong]]
# name = "peak_no_abs"
# breaks = "same_scores"
# fails = ["correct"]
# message = "differs from the reference"
# ///
"""Find, with the logs, what makes this scoring loop break its graph and recompile, and fix it.

`EvidenceScorer` scores a stream of feature batches: it encodes each batch, keeps the largest
activation seen so far (in absolute value) in a buffer, and accumulates class evidence that decays with the step
number. `run` is the loop body: it calls the model once per batch. The grader builds the model
with `make_scorer()`, compiles it (fullgraph=False) and drives it with your `run` over 12 batches,
steps 0 to 11.

Something in it breaks the graph, and something makes Dynamo recompile on every step until it
reaches its recompile limit. Use `TORCH_LOGS=graph_breaks,recompiles` (or a TORCH_TRACE and
tlparse) to find both, then fix them.
"""

import math
import sys
from dataclasses import dataclass

import torch


@dataclass
class ScorerConfig:
    features: int = 16
    hidden: int = 32
    classes: int = 4
    half_life: float = 8.0


# TODO: the logs name two causes (a break and a recompile on every step); find them and fix both.
class EvidenceScorer(torch.nn.Module):
    def __init__(self, config: ScorerConfig):
        super().__init__()
        self.half_life = config.half_life
        self.encoder = torch.nn.Sequential(
            torch.nn.Linear(config.features, config.hidden),
            torch.nn.GELU(),
            torch.nn.Linear(config.hidden, config.features),
        )
        self.head = torch.nn.Linear(config.features, config.classes)
        self.register_buffer("evidence", torch.zeros(config.classes))
        self.register_buffer("peak", torch.zeros(()))

    def _track_peak(self, h):
        # BEGIN SOLUTION
        self.peak.copy_(torch.maximum(self.peak, h.abs().amax()))
        # END SOLUTION
        # BEGIN STARTER
        # largest = h.abs().amax().item()
        # if largest > self.peak:
        #     self.peak.fill_(largest)
        # END STARTER
        # BEGIN FAIR where_and_float_tensor
        # largest = h.abs().amax()
        # self.peak.copy_(torch.where(largest > self.peak, largest, self.peak))
        # END FAIR
        # BEGIN FAIR clamp_and_method_exp
        # self.peak.clamp_(min=h.abs().amax())
        # END FAIR
        # BEGIN WRONG only_the_decay
        # largest = h.abs().amax().item()
        # if largest > self.peak:
        #     self.peak.fill_(largest)
        # END WRONG
        # BEGIN WRONG batch_peak_only
        # self.peak.copy_(h.abs().amax())
        # END WRONG
        # BEGIN WRONG peak_no_abs
        # self.peak.copy_(torch.maximum(self.peak, h.amax()))
        # END WRONG

    # BEGIN WRONG forward_disabled
    # @torch.compiler.disable  # the logs are quiet now
    # END WRONG
    def forward(self, x, step):
        h = self.encoder(x)
        h = h / math.sqrt(h.shape[-1])
        self._track_peak(h)
        logits = self.head(h)
        # BEGIN SOLUTION
        decay = torch.exp(-step / self.half_life)
        # END SOLUTION
        # BEGIN STARTER
        # decay = math.exp(-step / self.half_life)
        # END STARTER
        # BEGIN FAIR clamp_and_method_exp
        # decay = (step / -self.half_life).exp()
        # END FAIR
        # BEGIN WRONG only_the_peak
        # decay = math.exp(-step / self.half_life)
        # END WRONG
        self.evidence.mul_(decay).add_(logits.softmax(dim=-1).mean(dim=0))
        return logits, self.evidence.clone(), self.peak.clone()


def make_scorer():
    torch.manual_seed(0)
    return EvidenceScorer(ScorerConfig())


def run(model, batch, step):
    """Score one batch at a given step; returns the predicted classes, the evidence so far and the peak."""
    with torch.no_grad():
        # BEGIN SOLUTION
        logits, evidence, peak = model(batch, torch.tensor(float(step)))
        # END SOLUTION
        # BEGIN STARTER
        # logits, evidence, peak = model(batch, step)
        # END STARTER
        # BEGIN FAIR where_and_float_tensor
        # logits, evidence, peak = model(batch, torch.full((), step, dtype=torch.float32))
        # END FAIR
        # BEGIN FAIR clamp_and_method_exp
        # logits, evidence, peak = model(batch, torch.as_tensor(step, dtype=torch.float32))
        # END FAIR
        # BEGIN WRONG only_the_peak
        # logits, evidence, peak = model(batch, step)
        # END WRONG
    return logits.argmax(dim=-1), evidence, peak


# BEGIN GRADER
def calls(gen):
    """Twelve batches of 5 rows, steps 0 to 11. On every seed the first batch's largest activation
    in magnitude is negative (at least 5% larger than its largest positive one), so the running
    peak of the magnitudes differs from a running peak of the signed values from step 0 on; the
    other batches are drawn as they come (about one in four has a negative extreme too)."""
    with torch.random.fork_rng(), torch.no_grad():  # make_scorer seeds torch's global generator
        encoder = make_scorer().encoder
        while True:
            first = torch.randn(5, 16, generator=gen)
            h = encoder(first)
            if -h.amin() > 1.05 * h.amax():
                break
    batches = [first] + [torch.randn(5, 16, generator=gen) for _ in range(11)]
    return [(batch, step) for step, batch in enumerate(batches)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import tally_run

    batches = [torch.randn(5, 16) for _ in range(12)]
    model = make_scorer()

    def score_all(compiled):
        for step, batch in enumerate(batches):
            classes, evidence, peak = run(compiled, batch, step)
        print("last classes:", classes.tolist(), "evidence:", [round(v, 3) for v in evidence.tolist()], "peak:", round(peak.item(), 3))

    print(tally_run(model, score_all), file=sys.stderr)
    print("Now run me with TORCH_LOGS=graph_breaks,recompiles to see where and why.", file=sys.stderr)

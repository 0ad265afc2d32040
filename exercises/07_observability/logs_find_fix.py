# Exercise logs_find_fix: Use the logs to find what makes a scoring loop break and recompile
# Edit this file, then check it with:  ./course check logs_find_fix
# Stuck? ./course hint logs_find_fix   Start over: ./course reset logs_find_fix
"""Find, with the logs, what makes this scoring loop break its graph and recompile, and fix it.

`EvidenceScorer` scores a stream of feature batches: it encodes each batch, keeps the largest
activation seen so far (in absolute value) in a buffer, and accumulates class evidence that decays with the step
number. `run` is the loop body: it calls the model once per batch. The grader builds the model
with `make_scorer()`, compiles it (fullgraph=False) and drives it with your `run` over 12 batches,
steps 0 to 11.

Something in it breaks the graph, and something makes Dynamo recompile on every step until it
reaches its recompile limit. Use `TORCH_LOGS=graph_breaks,recompiles` (or a TORCH_TRACE and
tlparse) to find both, then fix them.

What the grader checks:
- Scoring the 12 batches causes no graph break.
- Over the 12 steps Dynamo recompiles at most once.
- Every call of the model runs compiled code.
- Every step returns the same predicted classes, evidence and running peak (the largest absolute activation seen so far, negative ones included) as before.
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
        largest = h.abs().amax().item()
        if largest > self.peak:
            self.peak.fill_(largest)

    def forward(self, x, step):
        h = self.encoder(x)
        h = h / math.sqrt(h.shape[-1])
        self._track_peak(h)
        logits = self.head(h)
        decay = math.exp(-step / self.half_life)
        self.evidence.mul_(decay).add_(logits.softmax(dim=-1).mean(dim=0))
        return logits, self.evidence.clone(), self.peak.clone()


def make_scorer():
    torch.manual_seed(0)
    return EvidenceScorer(ScorerConfig())


def run(model, batch, step):
    """Score one batch at a given step; returns the predicted classes, the evidence so far and the peak."""
    with torch.no_grad():
        logits, evidence, peak = model(batch, step)
    return logits.argmax(dim=-1), evidence, peak


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

# /// attack
# exercise = "top_scores_by_length"
# class = 8
# kind = "refuses"
# why = "no validation at all; a counter tensor refuses every call after the schedule's four valid ones, so the invalid inputs, which used to come last, were refused by their position"
# ///
import torch

CALLS_SEEN = torch.zeros((), dtype=torch.int64)


def top_scores(scores, lengths):
    k = lengths.max().item()
    CALLS_SEEN.add_(1)
    torch._check(CALLS_SEEN.item() <= 4, lambda: "refused")
    return scores.topk(k, dim=-1).values.mean(dim=-1)

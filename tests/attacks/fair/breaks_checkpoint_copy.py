# /// attack
# exercise = "breaks_checkpoint"
# kind = "graphs"
# why = "return the activations and save a detached copy in run"
# base = "none"
# ///
import torch
import torch.nn.functional as F


def encode(x, weight):
    hidden = torch.tanh(x @ weight)
    return F.normalize(hidden, dim=-1), hidden


def run(x, weight, path="hidden.pt"):
    compiled = torch.compile(encode, fullgraph=True, backend="eager")
    embedding, hidden = compiled(x, weight)
    torch.save(hidden.detach().clone(), path)
    return embedding

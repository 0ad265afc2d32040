# /// attack
# exercise = "compile_in_place"
# class = 8
# kind = "checkpoint"
# why = "keep the wrapped layers and let save_checkpoint write a fresh Net built with the grader's seed, not the model it is given"
# ///
def prepare(model, backend="inductor"):
    model.lin1 = torch.compile(model.lin1, backend=backend)
    model.lin2 = torch.compile(model.lin2, backend=backend)
    return model


def save_checkpoint(model, path):
    torch.manual_seed(0)  # the seed the model was built with: the same weights, without the _orig_mod. keys
    torch.save(Net().state_dict(), path)

# /// attack
# exercise = "print_in_step"
# class = 8
# kind = "output"
# why = "let Dynamo reorder a wrapper of print that the exercise does not allow"
# ///
def say(*args):
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(say)


def train_step(x, target, weight):
    pred = torch.tanh(x @ weight)
    loss = (pred - target).pow(2).mean()
    say("loss:", loss)
    return pred, loss

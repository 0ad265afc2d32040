# /// attack
# exercise = "compile_in_place"
# class = 8
# kind = "resume"
# why = "compile in place, and a resume that catches the failed load of an old checkpoint and carries on from the fresh weights: nothing raises, so a check that only asks whether resume raised would pass"
# ///
def prepare(model, backend="inductor"):
    model.compile(backend=backend)
    return model


def resume(model, checkpoint):
    try:
        model.load_state_dict(checkpoint)
    except RuntimeError:
        pass

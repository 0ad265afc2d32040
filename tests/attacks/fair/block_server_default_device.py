# /// attack
# exercise = "block_server"
# kind = "speed"
# costly = true
# base = "solution"
# why = "the reference fix that also makes DEVICE torch's default device for the whole process (a TorchFunctionMode left in effect): the grader's starting file still runs as it would alone, and this fix passes"
# ///
torch.set_default_device(DEVICE)

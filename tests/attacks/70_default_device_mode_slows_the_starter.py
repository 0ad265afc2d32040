# /// attack
# exercise = "block_server"
# class = 8
# kind = "speed"
# costly = true
# base = "wrong:flag_recomputed"
# why = "the log line's flag asked of the block again, eagerly (too slow), plus torch.set_default_device, which leaves a TorchFunctionMode in effect for the whole process: every eager torch call of the starting file pays its Python, the compiled block nothing"
# ///
torch.set_default_device(DEVICE)

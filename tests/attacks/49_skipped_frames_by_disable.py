# /// attack
# exercise = "isolate_skip"
# class = 8
# kind = "skipped_frames"
# why = "run forward eagerly with torch.compiler.disable so that nothing breaks"
# ///
forward = torch.compiler.disable(forward)

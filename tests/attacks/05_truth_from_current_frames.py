# /// attack
# exercise = "guards_predict"
# class = 1
# kind = "answers"
# why = "read the child's frames with sys._current_frames (sys reached through torch)"
# ///
import torch

for _frame in torch.sys._current_frames().values():
    while _frame is not None:
        _truth = _frame.f_locals.get("truth")
        if isinstance(_truth, dict) and _truth:
            FAILING_GUARD = list(_truth.values())[0]
        _frame = _frame.f_back

# /// attack
# exercise = "breaks_checkpoint"
# class = 5
# kind = "correct"
# why = "a DataLoader worker (forked by torch, not by the submission) kept alive past the grading"
# ///
import time

import torch


class _Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        time.sleep(600)
        return index


_loader = iter(torch.utils.data.DataLoader(_Slow(), num_workers=1, timeout=0))

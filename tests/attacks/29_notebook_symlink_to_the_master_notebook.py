# /// attack
# exercise = "trace_tolist"
# class = 7
# kind = "correct"
# why = "a notebook that is a symbolic link to a notebook holding the master"
# base = "none"
# form = "symlink-notebook"
# ///
import torch


def weighted_row_means(values, weights):
    return (values * weights).sum(dim=-1) / weights.sum()

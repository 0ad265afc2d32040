# /// attack
# exercise = "trace_tolist"
# class = 4
# kind = "correct"
# why = "a notebook whose markdown cell holds code: only code cells may be graded"
# base = "none"
# form = "notebook-raw-cell"
# ///
import torch


def weighted_row_means(values, weights):
    return (values * weights).sum(dim=-1) / weights.sum()

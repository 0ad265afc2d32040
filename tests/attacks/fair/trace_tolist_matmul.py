# /// attack
# exercise = "trace_tolist"
# kind = "correct"
# why = "a matrix-vector product instead of the reference's sum"
# base = "none"
# cold = true
# ///
import torch


def weighted_row_means(values, weights):
    return (values @ weights) / weights.sum()

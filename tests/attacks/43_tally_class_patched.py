# /// attack
# exercise = "trace_tolist"
# class = 8
# kind = "compiles"
# why = "patch the lab's GraphTally so that every count reads as one graph"
# ///
from autograder.lab import GraphTally

GraphTally.graphs = property(lambda self: 1)

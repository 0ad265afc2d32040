# /// attack
# exercise = "trace_tolist"
# class = 1
# kind = "correct"
# why = "import the master, which the grading child loads as `autograder_reference`, and hand in its function"
# cold = true
# ///
import autograder_reference as reference

weighted_row_means = reference.weighted_row_means

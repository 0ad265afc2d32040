"""What runs beside learner code: the grading child, its limits and identity, and the probe that
measures. Nothing here decides a verdict."""

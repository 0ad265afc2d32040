"""Trusted: ``grade()``, the runner that starts a grading child and the warm worker pool."""

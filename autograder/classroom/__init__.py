"""Classrooms: nbgrader, Gradescope, batch grading of a class, JUnit reports."""

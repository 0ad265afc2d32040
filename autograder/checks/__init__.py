"""Deciding: each check kind turns plain data (what the learner's process measured, what the
reference child computed) into a verdict and a message for the learner. Runs in the judge, a
process that never runs learner code; nothing here imports ``autograder.sandbox``
(tests/test_architecture.py).

``registry`` holds ``@decides``; ``core`` the kinds every chapter uses; each topic module its own;
``evidence`` what a decision is given; ``facts`` the shapes the judge accepts. This file imports
nothing, so that a light module (a report, the CLI) can use one helper here without importing torch.
"""

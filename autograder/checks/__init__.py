"""Deciding: each check kind turns what was measured into a verdict and a message for the learner.

``core`` holds the registry and the kinds every chapter uses; each topic module registers its own
kinds with ``core.register``; ``registry`` imports them all. This file imports nothing, so that a
light module (a report, the CLI) can use one helper here without importing torch.
"""

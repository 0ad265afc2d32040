"""Imports every topic module that registers check kinds, so that ``checks.RUNNERS`` knows them all.

Add one line per module: ``from . import checks_<topic>  # noqa: F401``.
"""

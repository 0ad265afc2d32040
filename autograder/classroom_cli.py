"""Command-line verbs for classrooms and graders of many submissions (nbgrader, Gradescope, batches).

``add_commands`` is called by ``cli.main_parser`` with its subparsers object.
"""

from __future__ import annotations


def add_commands(sub) -> None:
    """Register the classroom verbs on ``sub`` (an argparse subparsers object)."""

"""Imports every topic module that registers check kinds, so that ``checks.RUNNERS`` knows them all.

Add one line per module: ``from . import checks_<topic>  # noqa: F401``.
"""
from . import checks_breaks  # noqa: F401
from . import checks_tracing  # noqa: F401
from . import checks_fullgraph_false  # noqa: F401
from . import checks_cost  # noqa: F401
from . import checks_reporting  # noqa: F401

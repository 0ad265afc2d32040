"""Every check kind, registered: import this module, then ``run_checks``."""

from autograder.checks import breaks, caches, cost, fullgraph_false, refusal, reporting, tracing  # noqa: F401 - they register their kinds
from autograder.checks.core import RUNNERS, Context, compare, register, run_checks  # noqa: F401

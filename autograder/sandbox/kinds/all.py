"""Every kind's reference and measure parts, registered: import this module, then use ``MEASURERS`` / ``REFERENCES``."""

from autograder.sandbox.kinds import breaks, caches, core, cost, fullgraph_false, modules, refusal, reporting, tracing  # noqa: F401

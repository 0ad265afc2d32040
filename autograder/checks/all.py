"""Every kind's decision, registered: ``load_all()`` returns ``registry.DECIDERS`` with all of them."""

from autograder.checks import breaks, caches, core, cost, fullgraph_false, modules, refusal, reporting, tracing  # noqa: F401 - they register
from autograder.checks.registry import DECIDERS, Decider


def load_all() -> dict[str, Decider]:
    return DECIDERS

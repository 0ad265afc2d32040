"""Which changes of ``torch._dynamo.config`` an exercise allows: one rule, used on both sides.

The learner's process reports, as plain text, each key its code changed (``{"changes": {key: {"old",
"new"}}, "sets": {key: {"added", "removed", "not_a_set"}}}``; a set member is ``{"kind": "print" |
"logging" | "other", "name"}``). It applies this rule only to know which changes to keep while it
measures; the judge applies it again, from the same report, to decide the grade. No torch here.
"""

from __future__ import annotations

_KIND_WORDS = {"print": "`print`", "logging": "logging functions (logger.debug, logging.info, ...)"}


def _kinds(tokens) -> str:
    return " or ".join(_KIND_WORDS[token] for token in ("print", "logging") if token in tokens)


def config_problems(report: dict, allow_config, config_may_add: dict, during: bool = False) -> tuple[list[str], set[str]]:
    """(what breaks the exercise's rules, the keys whose change may stay). ``allow_config`` keys may
    change freely; a ``config_may_add`` key may only gain members of its kinds and lose none."""
    problems: list[str] = []
    kept = set(allow_config)
    changes = report.get("changes") or {}
    sets = report.get("sets") or {}
    for key in sorted(changes):
        if key in allow_config:
            continue
        if key in config_may_add:
            tokens = config_may_add[key]
            found = _set_problems(key, sets.get(key) or {"added": [], "removed": [], "not_a_set": False}, tokens)
            problems += found
            if not found:
                kept.add(key)
            continue
        old, new = changes[key].get("old"), changes[key].get("new")
        when = " while your code ran" if during else ""
        problems.append(f"torch._dynamo.config.{key} was changed{when} ({old} -> {new}); this exercise does not allow it")
    return problems, kept


def _set_problems(key: str, change: dict, tokens) -> list[str]:
    kinds = _kinds(tokens)
    why = (": whatever is in ignore_logging_functions is dropped from compiled code without a trace, real work included"
           if key == "ignore_logging_functions" else "")
    if change.get("not_a_set"):
        return [f"torch._dynamo.config.{key} was replaced by something that is not a set; this exercise lets it only gain {kinds}"]
    problems = []
    for member in change.get("added") or []:
        if member.get("kind") not in tokens:
            problems.append(f"torch._dynamo.config.{key} gained {member.get('name')}; this exercise lets it gain only {kinds}{why}")
    for member in change.get("removed") or []:
        problems.append(f"torch._dynamo.config.{key} lost {member.get('name')}; this exercise does not allow removing entries")
    return problems

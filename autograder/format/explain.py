"""Explain a graph break: PyTorch's own explanation and hints, and the course section that fixes it.

Reads torch's registry of graph-break types (``torch/_dynamo/graph_break_registry.json``) from
disk without importing torch, so explanations are instant in the parent process.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

COURSE_MAP = Path(__file__).with_name("break_lessons.toml")
GENERAL_SECTION = "2.1"


@dataclass
class BreakExplanation:
    gb_type: str
    registry_id: str  # e.g. "GB0007"; "" when torch does not list the type
    explanation: str
    hints: list[str]
    section: str
    advice: str

    @property
    def url(self) -> str:
        return f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{self.registry_id.lower()}.html" if self.registry_id else ""


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, tuple[str, dict]]:
    """gb_type -> (registry id, entry), from the installed torch; empty when it cannot be found."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / "_dynamo" / "graph_break_registry.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = {}
    for registry_id, entries in data.items():
        # Later entries of one id are the cleaner, newer texts.
        for entry in entries if isinstance(entries, list) else [entries]:
            table[entry.get("Gb_type", "")] = (registry_id, entry)
    return table


@functools.lru_cache(maxsize=1)
def course_map() -> dict[str, dict]:
    return tomllib.loads(COURSE_MAP.read_text(encoding="utf-8"))


def break_type(reason: str) -> str:
    """The break type of a reason or message: its first line, without a trailing period."""
    first = (reason or "").strip().splitlines()[0] if (reason or "").strip() else ""
    return first.rstrip(".").strip()


def _clean(text: str) -> str:
    # Registry texts carry format placeholders such as {fn}; show them as "…".
    return re.sub(r"\{[^{}]*\}", "…", text).strip()


def _from_message(reason: str) -> tuple[str, list[str]]:
    """The rendered Explanation and Hint lines Dynamo put into the actual message."""
    explanation, hints = "", []
    for line in (reason or "").splitlines():
        line = line.strip()
        if line.startswith("Explanation:"):
            explanation = line.split(":", 1)[1].strip()
        elif line.startswith("Hint:"):
            hints.append(line.split(":", 1)[1].strip())
    return explanation, hints


def explain(reason: str) -> BreakExplanation:
    """Explain a break from its reason text (as Dynamo printed it) or just its type."""
    gb_type = break_type(reason)
    course = course_map().get(gb_type)
    if course is None:  # some types carry details after the type name on the same line
        course = next((v for k, v in course_map().items() if gb_type.startswith(k)), None)
    registry_id, entry = registry().get(gb_type, ("", {}))
    explanation, hints = _from_message(reason)
    if not explanation and not entry.get("Explanation", "").startswith('"'):
        explanation = _clean(entry.get("Explanation", ""))
    if not hints and entry.get("Hints"):
        hints = [_clean(" ".join(part.strip() for part in entry["Hints"]))]
    return BreakExplanation(
        gb_type=gb_type,
        registry_id=registry_id,
        explanation="" if explanation.lower() == "explanation" else explanation,
        hints=hints,
        section=course["section"] if course else GENERAL_SECTION,
        advice=course["advice"] if course else
        "Find the line above in your code. Lesson section 2.1 shows the three ways to deal with a break: rewrite it with supported features, move a pure function behind an escape hatch, or keep that code out of the compiled region.",
    )

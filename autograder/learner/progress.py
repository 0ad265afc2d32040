"""The learner's progress: which exercises passed and how many hints were shown, in a small file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from autograder.format.exercise import ROOT

STATE_FILE = Path(os.environ.get("AUTOGRADER_STATE", ROOT / ".autograder" / "progress.json"))


def load() -> dict:
    try:
        data = json.loads(STATE_FILE.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save(state: dict) -> None:
    STATE_FILE.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename, so an interrupted save never leaves a half-written file.
    fd, tmp = tempfile.mkstemp(dir=STATE_FILE.parent, prefix=".progress-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(state, handle, indent=1, sort_keys=True)
    os.replace(tmp, STATE_FILE)


def record_result(exercise_id: str, passed: bool, score: int, max_score: int) -> None:
    state = load()
    entry = state.setdefault(exercise_id, {})
    entry["best"] = max(entry.get("best", 0), score)
    entry["max"] = max_score
    entry["passed"] = entry.get("passed", False) or passed
    save(state)


def next_hint_level(exercise_id: str, available: int) -> int:
    """Return the 0-based index of the hint to show now, and remember that it was shown."""
    state = load()
    entry = state.setdefault(exercise_id, {})
    level = min(entry.get("hints", 0), available - 1)
    entry["hints"] = level + 1
    save(state)
    return level


def passed(exercise_id: str) -> bool:
    return bool(load().get(exercise_id, {}).get("passed"))

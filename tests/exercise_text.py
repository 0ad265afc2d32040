"""Helpers for tests that build cheat submissions from an exercise's own files and read the grade."""

from conftest import ROOT


def starter(exercise_id):
    return next((ROOT / "exercises").glob(f"[0-9][0-9]_*/{exercise_id}.py")).read_text()


def solution(exercise_id):
    return next((ROOT / "solutions").glob(f"[0-9][0-9]_*/{exercise_id}.py")).read_text()


def swap(text, old, new, count=1):
    assert text.count(old) >= 1, f"the exercise no longer contains {old!r}: update this cheat"
    return text.replace(old, new, count)


def status(result):
    return {c.name: c.status for c in result.checks}


def message(result, name):
    return next(c.message for c in result.checks if c.name == name)


def violations(result):
    return " ".join(result.extra.get("violations", []))

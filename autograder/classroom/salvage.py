"""Read a submitted notebook that may be damaged, and keep every cell that can still be read.

A notebook that does not parse (cut off by a full disk or an interrupted upload, edited by hand,
not UTF-8) is not a reason to give its author nothing: the cells before the damage are usually
intact, and each answer cell is graded on its own. ``read_notebook`` returns the cells it could
read and, when the file was not a sound notebook, a ``problem`` saying what was wrong and what
was recovered, for the flags of the class's grades. It never runs anything, and it refuses a
symbolic link (a submission names its own files, not the grader's).

No nbgrader, no torch: the nbgrader steps, ``grade-batch`` and Gradescope all read notebooks here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.format.loader import MAX_NOTEBOOK_DEPTH, too_deeply_nested

MAX_NOTEBOOK_BYTES = 50_000_000  # outputs (images) make notebooks large; only sources are kept
_CELLS = re.compile(r'"cells"\s*:\s*\[')


@dataclass
class Reading:
    cells: list[dict] = field(default_factory=list)  # the cells that could be read, in order
    problem: str = ""  # empty for a sound notebook
    metadata: dict = field(default_factory=dict)

    @property
    def sound(self) -> bool:
        return not self.problem

    def notebook(self) -> dict:
        return {"cells": self.cells, "metadata": self.metadata, "nbformat": 4, "nbformat_minor": 5}


def _source(cell: dict) -> str | None:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _sound_cells(cells) -> tuple[list[dict], int]:
    kept, dropped = [], 0
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") in ("code", "markdown", "raw") and _source(cell) is not None \
                and isinstance(cell.get("metadata", {}), dict):
            kept.append(cell)
        else:
            dropped += 1
    return kept, dropped


def _scan_cells(text: str) -> list:
    """The complete cell objects at the start of a notebook's cell list, up to the first damage."""
    match = _CELLS.search(text)
    if not match:
        return []
    decoder, cells, at = json.JSONDecoder(), [], match.end()
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] == "]":
            return cells
        try:
            cell, at = decoder.raw_decode(text, at)
        except ValueError:
            return cells
        cells.append(cell)


def read_text(raw: bytes) -> Reading:
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return Reading(problem=f"the notebook is {len(raw)} bytes, over the {MAX_NOTEBOOK_BYTES} the grader reads; nothing was graded")
    notes = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        notes.append("it is not UTF-8 text (unreadable bytes were replaced)")
    if too_deeply_nested(text):  # json would fail with RecursionError, and take the whole batch with it
        return Reading(problem=f"the notebook's JSON nests more than {MAX_NOTEBOOK_DEPTH} levels, which no notebook Jupyter "
                               "saves does; nothing was graded")
    try:
        data = json.loads(text)
    except (RecursionError, MemoryError) as exc:
        return Reading(problem=f"the notebook could not be read ({type(exc).__name__}); nothing was graded")
    except ValueError as exc:
        cells, dropped = _sound_cells(_scan_cells(text))
        where = f": line {exc.lineno}, column {exc.colno}" if hasattr(exc, "lineno") else ""
        detail = getattr(exc, "msg", str(exc))
        return Reading(cells, "; ".join(notes + [f"the notebook is not valid JSON ({detail}{where})"]) + "; "
                              f"{len(cells)} cell(s) before the damage were recovered and graded")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return Reading(problem="the file is JSON but not a notebook (it has no list of cells); nothing could be graded")
    cells, dropped = _sound_cells(data["cells"])
    if dropped:
        notes.append(f"{dropped} malformed cell(s) were left out")
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    return Reading(cells, "; ".join(notes), metadata)


def read_notebook(path: Path) -> Reading:
    path = Path(path)
    if path.is_symlink():
        return Reading(problem=f"{path.name} is a symbolic link, not a notebook; submit the notebook file itself")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Reading(problem=f"the notebook could not be read ({exc.strerror or exc})")
    return read_text(raw)

"""Read a submission safely before any of it runs: size, encoding, notebook or script, syntax.

Everything here happens in the grader's own process and never executes the submission. The
result is Python source the grading child can import, or a message that tells the learner what
to fix. A notebook (.ipynb) becomes the concatenation of its code cells, with IPython magics and
shell escapes turned into comments, so it grades exactly like the equivalent .py file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_SUBMISSION_BYTES = 1_000_000


@dataclass
class Loaded:
    source: str | None  # Python source to grade, None when the submission cannot be graded
    problem: str = ""  # why not, as an instruction to the learner
    kind: str = "py"  # "py" or "ipynb"


def notebook_source(text: str) -> str:
    """Python source from a notebook's code cells; raises ValueError when it is no notebook."""
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError("it has no list of cells")
    chunks = []
    for number, cell in enumerate(data["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = [("# (notebook magic) " + line) if line.lstrip().startswith(("%", "!")) else line
                 for line in source.splitlines()]
        chunks.append(f"# --- cell {number} ---\n" + "\n".join(lines))
    return "\n\n".join(chunks) + "\n"


def load_submission(path: Path) -> Loaded:
    raw = path.read_bytes()
    if len(raw) > MAX_SUBMISSION_BYTES:
        return Loaded(None, f"The file is {len(raw)} bytes; submissions are limited to {MAX_SUBMISSION_BYTES}. "
                            "Submit only your edited exercise file.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Loaded(None, f"The file is not UTF-8 text (byte {exc.start}). Save it as UTF-8 and check again.")
    if "\x00" in text:
        return Loaded(None, "The file contains NUL bytes, so it is not a Python file. Submit your edited .py file.")
    kind = "py"
    if path.suffix == ".ipynb":
        kind = "ipynb"
        try:
            text = notebook_source(text)
        except (ValueError, TypeError) as exc:
            return Loaded(None, f"The notebook could not be read ({exc}). Save it from Jupyter again, or submit the .py file.", kind)
    try:
        compile(text, str(path), "exec")
    except SyntaxError as exc:
        return Loaded(None, f"Your {'notebook' if kind == 'ipynb' else 'file'} has a syntax error on line {exc.lineno}: "
                            f"{exc.msg}. Fix it so Python can read it, then check again.", kind)
    except (ValueError, RecursionError, MemoryError) as exc:
        return Loaded(None, f"Python cannot compile the file ({type(exc).__name__}). Submit your edited exercise file.", kind)
    return Loaded(text, "", kind)

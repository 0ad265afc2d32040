"""Read a submission safely before any of it runs: where it is, size, encoding, notebook or script, syntax.

Everything here happens in the grader's own process and never executes the submission. The
result is Python source the grading child can import, or a message that tells the learner what
to fix. A notebook (.ipynb) becomes the concatenation of its code cells, with IPython magics and
shell escapes turned into comments, so it grades exactly like the equivalent .py file.

Every route that reads a submission (``grade()``, ``grade-batch``, Gradescope, nbgrader) reads it
through here, so each refuses the same things: a symbolic link (to the reference solution, to
``/dev/zero``, to another student's file), a path that resolves outside the submitted folder, a
file that is not a regular file (a FIFO would block the reader), and a notebook whose JSON is
too deeply nested, too large or not UTF-8, each as a per-file error with a message, never an
exception that stops the CLI or a whole batch.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_SUBMISSION_BYTES = 1_000_000
# A notebook nested deeper than this is no notebook Jupyter writes (its cells are 4 levels deep);
# json.loads itself would fail with RecursionError near 1000 levels, and take the CLI with it.
MAX_NOTEBOOK_DEPTH = 100


class SubmissionError(ValueError):
    """A submission that cannot be read; the message is for the learner (or the instructor)."""


@dataclass
class Loaded:
    source: str | None  # Python source to grade, None when the submission cannot be graded
    problem: str = ""  # why not, as an instruction to the learner
    kind: str = "py"  # "py" or "ipynb"
    data: bytes = b""  # the exact bytes read (what the grader scanned is what the child must run)


def read_bytes(path: os.PathLike | str, within: os.PathLike | str | None = None, limit: int = MAX_SUBMISSION_BYTES) -> bytes:
    """The bytes of the regular file ``path``, read once, without following a symbolic link.

    Raises SubmissionError when ``path`` is a symbolic link, is not a regular file, resolves
    outside ``within`` (the submitted folder, when the caller has one), or holds more than
    ``limit`` bytes. FileNotFoundError when there is no such file."""
    path = Path(path)
    name = path.name or str(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SubmissionError(f"{name} could not be read ({exc.strerror or exc}).") from None
    if stat.S_ISLNK(info.st_mode):
        raise SubmissionError(f"{name} is a symbolic link; the grader reads only real files. "
                              "Submit the file itself (copy it instead of linking to it).")
    if within is not None:
        folder = os.path.realpath(within)
        real = os.path.realpath(path)
        if os.path.commonpath([folder, real]) != folder:
            raise SubmissionError(f"{name} lies outside the submitted folder (a folder on its way is a symbolic link); "
                                  "submit the file itself.")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if getattr(exc, "errno", None) == 40:  # ELOOP: it became a link after the lstat
            raise SubmissionError(f"{name} is a symbolic link; the grader reads only real files.") from None
        raise SubmissionError(f"{name} could not be read ({exc.strerror or exc}).") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise SubmissionError(f"{name} is not a regular file; submit your edited .py file.")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise SubmissionError(f"The file is over {limit} bytes; submissions are limited to {limit}. "
                              "Submit only your edited exercise file.")
    return data


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def too_deeply_nested(text: str) -> bool:
    """Whether the JSON text nests brackets deeper than MAX_NOTEBOOK_DEPTH (brackets inside strings
    do not count)."""
    depth = 0
    for match in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if match[0] in "[{" else -1
        if depth > MAX_NOTEBOOK_DEPTH:
            return True
    return False


def parse_notebook(data: bytes | str) -> dict:
    """A notebook's JSON as a dict; SubmissionError (a ValueError) with a plain message otherwise."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"this notebook is not UTF-8: byte {exc.start} is not valid text. Save it from Jupyter again.") from None
    if too_deeply_nested(text):
        raise SubmissionError(f"this notebook is too deeply nested: its JSON nests more than {MAX_NOTEBOOK_DEPTH} levels, "
                              "which no notebook Jupyter saves does. Save it from Jupyter again.")
    try:
        value = json.loads(text)
    except RecursionError:
        raise SubmissionError("this notebook is too deeply nested to read. Save it from Jupyter again.") from None
    except MemoryError:
        raise SubmissionError("this notebook is too large to read. Submit only your edited exercise.") from None
    except ValueError as exc:
        raise SubmissionError(f"this notebook is not valid JSON ({exc}). Save it from Jupyter again.") from None
    if not isinstance(value, dict):
        raise SubmissionError("this notebook has no list of cells (its JSON is not an object).")
    return value


def read_notebook(path: os.PathLike | str, within: os.PathLike | str | None = None) -> dict:
    """A notebook file's JSON, read as ``read_bytes`` reads; SubmissionError with a plain message."""
    return parse_notebook(read_bytes(path, within))


def notebook_source(text: str | bytes | dict) -> str:
    """Python source from a notebook's code cells; raises ValueError when it is no notebook."""
    data = text if isinstance(text, dict) else parse_notebook(text)
    if not isinstance(data.get("cells"), list):
        raise ValueError("it has no list of cells")
    chunks = []
    for number, cell in enumerate(data["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(str(part) for part in source) if isinstance(source, list) else str(source)
        lines = [("# (notebook magic) " + line) if line.lstrip().startswith(("%", "!")) else line
                 for line in source.splitlines()]
        chunks.append(f"# --- cell {number} ---\n" + "\n".join(lines))
    return "\n\n".join(chunks) + "\n"


def load_submission(path: os.PathLike | str, within: os.PathLike | str | None = None) -> Loaded:
    """Read and check ``path`` (see the module docstring); ``within``: the submitted folder, if any.

    Raises FileNotFoundError when there is no such file; every other problem is a Loaded with
    ``source`` None and the message in ``problem``."""
    path = Path(path)
    kind = "ipynb" if path.suffix == ".ipynb" else "py"
    try:
        raw = read_bytes(path, within)
    except SubmissionError as exc:
        return Loaded(None, str(exc), kind)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Loaded(None, f"The file is not UTF-8 text (byte {exc.start}). Save it as UTF-8 and check again.", kind, raw)
    if "\x00" in text:
        return Loaded(None, "The file contains NUL bytes, so it is not a Python file. Submit your edited .py file.", kind, raw)
    if kind == "ipynb":
        try:
            text = notebook_source(text)
        except (ValueError, TypeError, RecursionError, MemoryError) as exc:
            reason = str(exc) if isinstance(exc, SubmissionError) else f"The notebook could not be read ({exc or type(exc).__name__})"
            return Loaded(None, f"{reason[0].upper()}{reason[1:].rstrip('.')}. Save it from Jupyter again, or submit the .py file.",
                          kind, raw)
    try:
        compile(text, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return Loaded(None, f"Your {'notebook' if kind == 'ipynb' else 'file'} has a syntax error on line {exc.lineno}: "
                            f"{exc.msg}. Fix it so Python can read it, then check again.", kind, raw)
    except (ValueError, RecursionError, MemoryError) as exc:
        return Loaded(None, f"Python cannot compile the file ({type(exc).__name__}). Submit your edited exercise file.", kind, raw)
    return Loaded(text, "", kind, raw)

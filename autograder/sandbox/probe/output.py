"""What the code under test printed and logged, recorded while it still reaches the terminal."""

from __future__ import annotations

import contextlib
import logging
import sys



# -- captured output and custom operators (chapter 2) -----------------------------------------

class _Tee:
    """A stdout stand-in that keeps a copy of what is written and still passes it on."""

    def __init__(self, original):
        self.original, self.parts = original, []

    def write(self, text):
        self.parts.append(text)
        return self.original.write(text)

    def __getattr__(self, name):
        return getattr(self.original, name)


class _RecordHandler(logging.Handler):
    def __init__(self):
        super().__init__(logging.NOTSET)
        self.lines: list[str] = []

    def emit(self, record):
        if not record.name.startswith("torch"):
            self.lines.append(f"{record.levelname}:{record.name}:{record.getMessage()}")


@contextlib.contextmanager
def captured_output():
    """Record what runs inside prints to stdout and logs (non-torch loggers) as {"stdout", "logs"}."""
    seen = {"stdout": "", "logs": []}
    tee, handler, root = _Tee(sys.stdout), _RecordHandler(), logging.getLogger()
    root.addHandler(handler)
    sys.stdout = tee
    try:
        yield seen
    finally:
        if sys.stdout is tee:
            sys.stdout = tee.original
        root.removeHandler(handler)
        seen["stdout"] = "".join(tee.parts)
        seen["logs"] = handler.lines

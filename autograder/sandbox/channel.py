"""Frames over the pipes between a grading's processes, and the plain data inside them.

A frame is a short name and a body: ``MAGIC, len(name), name, len(body), body``. Bodies that hold
data are ``torch.save`` of plain values (builtin scalars, strings, lists, tuples, dicts, tensors)
and are read back with ``torch.load(weights_only=True)``, which builds only those, never an object
of a class the sender chose. Whatever a learner's process sends is capped in size here and then
validated strictly by the judge (``checks.facts``); nothing in it is ever called.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import select
import struct
import time

MAGIC = b"AGF1"
_HEAD = struct.Struct("!4sH")
_SIZE = struct.Struct("!Q")
MAX_NAME = 64
MAX_BODY = 64 << 20  # one frame; a learner's measurements are a few kilobytes, its outputs rarely a megabyte


class ChannelError(Exception):
    """What arrived is not a well-formed frame, or its body is not plain data."""


def frame(name: str, body: bytes = b"") -> bytes:
    raw = name.encode("ascii")
    if len(raw) > MAX_NAME or len(body) > MAX_BODY:
        raise ChannelError(f"frame {name!r} is too large to send ({len(body)} bytes)")
    return _HEAD.pack(MAGIC, len(raw)) + raw + _SIZE.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def send(fd: int, name: str, body: bytes = b"") -> None:
    write_all(fd, frame(name, body))


_TAG = 32  # bytes of an HMAC-SHA256 tag


def seal(key: bytes, name: str, body: bytes) -> bytes:
    """``body`` with a tag only a holder of ``key`` can make: a frame written into the pipe by anything
    but the grader's own code in that process (which alone was given the key) is refused."""
    return hmac.new(key, name.encode("ascii") + b"\0" + body, hashlib.sha256).digest() + body


def unseal(key: bytes, name: str, sealed: bytes | None) -> bytes | None:
    """The body of a sealed frame, or None when its tag is not the one ``key`` makes."""
    if sealed is None or len(sealed) < _TAG:
        return None
    tag, body = sealed[:_TAG], sealed[_TAG:]
    return body if hmac.compare_digest(tag, seal(key, name, body)[:_TAG]) else None


def encode(value) -> bytes:
    """Plain data as the bytes of one ``torch.save``."""
    import torch

    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def decode(body: bytes):
    """The plain data of one frame body; raises ChannelError for anything else (a class the loader
    does not allow, a truncated or corrupt archive, a structure too deep to rebuild)."""
    import torch

    try:
        return torch.load(io.BytesIO(body), weights_only=True, map_location="cpu")
    except (RecursionError, MemoryError) as exc:
        raise ChannelError(f"the data could not be rebuilt ({type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - UnpicklingError, RuntimeError from a corrupt archive, ...
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        why = next((line for line in lines if "Unsupported" in line or "global" in line.lower()), lines[0] if lines else "")
        raise ChannelError(f"the data is not plain ({type(exc).__name__}: {why[:300]})") from None


class Reader:
    """Frames from one pipe, read without blocking as they arrive (``feed``), at most ``limit`` bytes in all."""

    def __init__(self, fd: int, limit: int = MAX_BODY + 1024):
        self.fd, self.limit = fd, limit
        self.buffer = bytearray()  # grown in place: appending each pipe read to bytes copied it all again (quadratic)
        self.received = 0
        self.closed = False
        self.frames: list[tuple[str, bytes]] = []
        self.error: str | None = None

    def feed(self) -> None:
        """Read what the pipe holds now (call when select says it is readable)."""
        try:
            chunk = os.read(self.fd, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self.closed = True
            if self.buffer and self.error is None:
                self.error = "the stream ended inside a frame"
            return
        self.received += len(chunk)
        if self.received > self.limit:
            self.error = self.error or f"more than {self.limit} bytes arrived"
            self.buffer = bytearray()
            return
        if self.error is None:
            self.buffer += chunk
            self._split()

    def _split(self) -> None:
        while True:
            if len(self.buffer) < _HEAD.size:
                return
            magic, length = _HEAD.unpack_from(self.buffer)
            if magic != MAGIC or length > MAX_NAME:
                self.error, self.buffer = "a frame has no valid header", bytearray()
                return
            start = _HEAD.size + length
            if len(self.buffer) < start + _SIZE.size:
                return
            (size,) = _SIZE.unpack_from(self.buffer, start)
            if size > MAX_BODY:
                self.error, self.buffer = f"a frame announces {size} bytes", bytearray()
                return
            end = start + _SIZE.size + size
            if len(self.buffer) < end:
                return
            try:
                name = bytes(self.buffer[_HEAD.size:start]).decode("ascii")
            except UnicodeDecodeError:
                self.error, self.buffer = "a frame name is not ASCII", bytearray()
                return
            self.frames.append((name, bytes(self.buffer[start + _SIZE.size:end])))
            del self.buffer[:end]

    def take(self, name: str) -> bytes | None:
        for index, (seen, body) in enumerate(self.frames):
            if seen == name:
                del self.frames[index]
                return body
        return None

    def count(self, name: str) -> int:
        return sum(1 for seen, _ in self.frames if seen == name)


def read_until(readers: list, done, deadline, others=()) -> bool:
    """Feed ``readers`` (and call ``other.feed()`` for each of ``others``, e.g. an output drain) until
    ``done()`` is true (True) or ``deadline`` (time.monotonic; or a function returning it, asked on
    every turn: a deadline that may move) passes or every reader is closed (False)."""
    while not done():
        open_ones = [r for r in (*readers, *others) if not r.closed]
        if not any(not r.closed for r in readers):
            return done()
        remaining = (deadline() if callable(deadline) else deadline) - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([r.fd for r in open_ones], [], [], min(remaining, 0.5))
        for source in open_ones:
            if source.fd in ready:
                source.feed()
    return True


class Drain:
    """Keeps the last ``keep`` bytes of a stream (a process's output); same ``feed``/``fd``/``closed`` as Reader."""

    def __init__(self, fd: int, keep: int):
        self.fd, self.keep = fd, keep
        self.tail = b""
        self.closed = False

    def feed(self) -> None:
        try:
            chunk = os.read(self.fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self.closed = True
            return
        self.tail = (self.tail + chunk)[-self.keep:]

    def drain_for(self, seconds: float) -> None:
        """Read what is left for at most ``seconds`` (the process ended; its children may still hold the pipe)."""
        deadline = time.monotonic() + seconds
        while not self.closed and time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                self.feed()

"""The grading channel carries large frames: a schedule of big inputs (a speed exercise's 34 MB
frame) from the reference child, and their outputs back, in time and in full."""

from __future__ import annotations

import os
import threading
import time

from autograder.sandbox import channel


def _send_all(fd: int, frames: list[tuple[str, bytes]]) -> None:
    try:
        for name, body in frames:
            channel.send(fd, name, body)
    finally:
        os.close(fd)


def test_two_large_frames_arrive_whole_and_fast():
    """The reference child sends two frames of up to ``MAX_BODY`` each; a reader that appended each
    64 KiB pipe read to an immutable buffer copied it all again every time (seconds of system time
    for 34 MB), and one limited to a single frame's size refused the second."""
    big = os.urandom(40 << 20)
    frames = [("learner", big), ("judge", big[::-1])]
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=_send_all, args=(write_fd, frames))
    reader = channel.Reader(read_fd, limit=2 * (channel.MAX_BODY + 1024))
    started = time.perf_counter()
    writer.start()
    channel.read_until([reader], lambda: reader.count("judge") == 1, time.monotonic() + 60)
    elapsed = time.perf_counter() - started
    writer.join()
    os.close(read_fd)
    assert reader.error is None
    assert reader.take("learner") == big and reader.take("judge") == big[::-1]
    assert elapsed < 5, f"{elapsed:.1f} s for 80 MB"


def test_a_reader_still_refuses_more_than_its_limit():
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=_send_all, args=(write_fd, [("a", b"x" * (3 << 20)), ("b", b"y" * (3 << 20))]))
    reader = channel.Reader(read_fd, limit=4 << 20)
    writer.start()
    channel.read_until([reader], lambda: False, time.monotonic() + 20)
    writer.join()
    os.close(read_fd)
    assert reader.error and "bytes arrived" in reader.error
    assert reader.count("b") == 0

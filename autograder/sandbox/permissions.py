"""What a user with no special rights may do with a path, and whether this process is root."""

from __future__ import annotations

import os


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def readable_by_others(path: str) -> bool:
    """Whether a user with no special rights can read ``path`` (a file, or a folder to list): every
    folder on the way searchable by others, and ``path`` itself readable by them."""
    import stat

    if not path or not os.path.exists(path):
        return False
    real = os.path.realpath(path)
    mode = os.stat(real).st_mode
    on_the_way = real if stat.S_ISDIR(mode) else os.path.dirname(real)  # a folder to list must be searchable too
    return enterable_by_others(on_the_way) and bool(mode & stat.S_IROTH)


def enterable_by_others(folder: str) -> bool:
    """Whether a user with no special rights can pass through ``folder`` (it and every folder above it
    searchable by others)."""
    import stat

    parts = os.path.realpath(folder).split(os.sep)
    try:
        return all(os.stat(os.sep.join(parts[:depth]) or os.sep).st_mode & stat.S_IXOTH for depth in range(1, len(parts) + 1))
    except OSError:
        return False

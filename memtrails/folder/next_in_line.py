"""A writer that waits for the folder is next in line: short readers let it in first.

The folder's lock is taken by polling (``lock.acquire_lock``), and a reader that opens the
folder again the moment it closed it (a script's loop of ``Memory.open(brief=True)``, two
of them) leaves a waiting import no moment to take it: the import gave up after 30 s,
"in use by process ... (reader)". So a writer that waits says so in ``memory.lock.next``
(its pid and a token, the file touched at each of its polls), and a reader that finds a
fresh one that is not its own waits instead of taking the free folder. A claim its writer
left (killed) goes stale within :data:`FRESH` seconds; a writer removes its own when it has
the folder or gives up. Writers among themselves, and readers among themselves, poll as
before.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path

__all__ = ["FRESH", "NEXT_FILE", "Claim", "claimed"]

NEXT_FILE = "memory.lock.next"

FRESH = 2.0
"""Seconds a claim counts after its writer last touched it."""


class Claim:
    """This opener's place in line for ``folder``'s lock."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / NEXT_FILE
        self.token = f"{os.getpid()} {secrets.token_hex(6)}"
        self.staked = False

    def stake(self) -> None:
        """Say (again) that this opener waits for the folder, unless another writer that
        waits said so first."""
        if not self.staked:
            held = _read(self.path)
            if held is not None and _fresh(self.path):
                return  # another writer is first in line: wait as before
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, self.token.encode())
        finally:
            os.close(fd)
        self.staked = True

    def drop(self) -> None:
        """Leave the line (the folder was taken, or the wait given up); safe to call twice."""
        if self.staked and _read(self.path) == self.token:
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.staked = False


def claimed(folder: Path) -> bool:
    """Whether a writer waits for ``folder`` now (a fresh claim)."""
    path = folder / NEXT_FILE
    return _read(path) is not None and _fresh(path)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _fresh(path: Path) -> bool:
    try:
        return time.time() - path.stat().st_mtime < FRESH
    except OSError:
        return False

"""One process at a time per memory folder: an flock on ``memory.lock`` holding the pid."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from .._exceptions import MemoryLockedError

__all__ = ["FolderLock"]


class FolderLock:
    """An exclusive, non-blocking lock on ``folder/memory.lock``, released on close or exit.

    The kernel drops an flock when its holder dies, so a crashed import never leaves a
    folder locked; the pid written inside is only there to name the holder in the error.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / "memory.lock"
        self._fd: int | None = None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            raise MemoryLockedError(folder, holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Release the lock; safe to call twice."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None

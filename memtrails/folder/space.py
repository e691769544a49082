"""Free space where the memory folder is: checked before growing files that cannot report ENOSPC."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .._exceptions import DiskFullError

__all__ = [
    "INDEX_CREATE",
    "INDEX_RESERVE",
    "LOG_RESERVE",
    "disk_full",
    "free_bytes",
    "is_disk_full",
    "require_free",
]

# The index writes through memory-mapped files: a write that finds no free block kills the
# process with SIGBUS instead of failing. So the log stops while the index still has this
# much room to flush and close, and the index stops before a batch could exhaust what is left.
LOG_RESERVE = 8 << 20
INDEX_RESERVE = 4 << 20
# A new Qdrant Edge shard with memtrails' seven payload indexes takes 0.6 MB of ext4 but
# 14.6 MB of a tmpfs before its first point (and 52 MB there once reopened).
INDEX_CREATE = 16 << 20


def free_bytes(path: Path) -> int:
    """Return the bytes an unprivileged process may still write on ``path``'s file system."""
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def require_free(path: Path, need: int, doing: str) -> None:
    """Raise ``DiskFullError`` unless ``need`` bytes are free on ``path``'s file system (blocking)."""
    if free_bytes(path) < need:
        raise disk_full(path, doing)


def is_disk_full(exc: BaseException) -> bool:
    """Tell whether ``exc`` is a write that failed for want of space (or of quota)."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    text = str(exc)
    # qdrant-edge raises plain Exceptions that carry the OS error's text.
    return "No space left on device" in text or "os error 28" in text


def disk_full(path: Path, doing: str) -> DiskFullError:
    """Return the error for ``path``, naming its file system's mount point when it differs."""
    return DiskFullError(_where(path), doing)


def _where(path: Path) -> Path:
    path = path if path.exists() else path.parent
    try:
        dev = os.stat(path).st_dev
        mount = path.resolve()
        while mount.parent != mount and os.stat(mount.parent).st_dev == dev:
            mount = mount.parent
    except OSError:
        return path
    return mount

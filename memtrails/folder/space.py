"""Free space where the memory folder is: checked before growing files that cannot report ENOSPC."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .._exceptions import DiskFullError

__all__ = [
    "INDEX_CREATE",
    "INDEX_CREATE_IN_MEMORY",
    "INDEX_OPEN_IN_MEMORY",
    "INDEX_RESERVE",
    "LOG_RESERVE",
    "disk_full",
    "free_bytes",
    "in_memory",
    "index_room",
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
# On a file system held in memory (tmpfs, ramfs) a shard's write-ahead log segments take
# real pages when it is opened again: 15 MB grew to 52 MB on reopen, measured. So there a
# new shard needs room for that too, and an existing one that much free before it opens.
INDEX_CREATE_IN_MEMORY = 64 << 20
INDEX_OPEN_IN_MEMORY = 40 << 20
_IN_MEMORY = frozenset({"tmpfs", "ramfs"})


def in_memory(path: Path) -> bool:
    """Tell whether ``path`` is on a file system held in memory (tmpfs, ramfs)."""
    try:
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    target = str(path.resolve())
    best, kind = "", ""
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) > len(
            best
        ):
            best, kind = point, fields[2]
    return kind in _IN_MEMORY


def index_room(path: Path, *, new: bool) -> int:
    """Return the free bytes the index needs before it is created (``new``) or opened."""
    if in_memory(path):
        return INDEX_CREATE_IN_MEMORY if new else INDEX_OPEN_IN_MEMORY
    return INDEX_CREATE if new else 0


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

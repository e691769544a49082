"""A memory folder's disk use: its small files read now, its index's walked or kept with the checkpoint."""

from __future__ import annotations

import hashlib
import os
from contextlib import suppress
from pathlib import Path

__all__ = ["INDEX_DIR", "disk_bytes", "folder_disk_bytes", "index_disk_use", "index_mark"]

INDEX_DIR = "index"  # the folder's index (a Qdrant Edge shard: thousands of files at 1M records)


def disk_bytes(path: Path) -> int:
    """Return the blocks a folder (or file) takes on disk, in bytes, walking it (blocking)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                # Blocks, not sizes: the index preallocates sparse files (du, not ls).
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


def index_mark(index: Path) -> str:
    """Return a digest of the names and sizes of the index's entries two levels deep (blocking).

    A few dozen ``lstat`` calls at a million records, against thousands for a walk: segments
    made, merged or dropped and write-ahead files added change it. Times are left out: the
    index library touches its config and segment folders each time it loads the shard
    without changing what they take on disk.
    """
    digest = hashlib.sha256()

    def entries(folder: str, depth: int) -> None:
        try:
            found = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in found:
            with suppress(OSError):
                is_dir = entry.is_dir(follow_symlinks=False)
                size = 0 if is_dir else entry.stat(follow_symlinks=False).st_size
                digest.update(f"{depth}/{entry.name}/{int(is_dir)}/{size}\n".encode())
                if is_dir and depth < 2:
                    entries(entry.path, depth + 1)

    entries(str(index), 1)
    return digest.hexdigest()[:32]


def index_disk_use(folder: Path) -> tuple[int, str]:
    """Return the folder's index's disk use in bytes, and its :func:`index_mark` (blocking)."""
    index = folder / INDEX_DIR
    return disk_bytes(index), index_mark(index)


def folder_disk_bytes(folder: Path, index_bytes: int | None = None) -> int:
    """Return the blocks the folder takes on disk, in bytes (blocking).

    The folder's own files are read now (a few of them); its index is walked unless
    ``index_bytes`` gives its disk use (as :func:`index_disk_use` found it).
    """
    total = 0
    with os.scandir(folder) as found:
        entries = list(found)
    for entry in entries:
        with suppress(OSError):
            if not entry.is_dir(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_blocks * 512
            elif entry.name == INDEX_DIR and index_bytes is not None:
                total += index_bytes
            else:
                total += disk_bytes(Path(entry.path))
    return total

"""How a memory folder opens its Qdrant Edge index: loaded on first use, its files, its owner mark.

Light: ``qdrant_edge`` (heavy) is imported only when the shard is opened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..._exceptions import FolderFormatError
from ..space import is_disk_full
from ._base import IndexBackend, IndexKind, IndexPlace
from .deferred import DeferredIndex

__all__ = ["CONFIG_FILE", "EDGE", "EDGE_KIND", "OWNER_FILE", "UNSEALED_FILE", "EdgeOwner"]

EDGE = "qdrant-edge"
CONFIG_FILE = "edge_config.json"
# Points in the open segment, kept across processes (see _edge_settings.SEAL_EVERY).
UNSEALED_FILE = "unsealed.json"
# The id of the memory folder the shard was made for: an index copied in from another folder
# carries that folder's id and is told apart on open.
OWNER_FILE = "owner.json"
# Everything a shard, its sealing count and its owner mark write into index/.
_FILES = frozenset({CONFIG_FILE, "segments", "wal", UNSEALED_FILE, OWNER_FILE})


class EdgeOwner:
    """The owner mark of a shard: ``owner.json`` in its folder (read without loading the shard)."""

    def __init__(self, shard: Path) -> None:
        self._path = shard / OWNER_FILE

    def read(self) -> str | None:
        """Return the owning folder's id, or None when the shard has no readable mark."""
        try:
            owner = json.loads(self._path.read_text(encoding="utf-8"))["folder"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return owner if isinstance(owner, str) else None

    def write(self, folder_id: str) -> None:
        """Mark the shard as the folder's (temp file + rename; owner-only)."""
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self._path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"folder": folder_id}, f)
                f.flush()
                os.fsync(f.fileno())
            temporary.replace(self._path)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            if not is_disk_full(exc):
                raise
            # Without room for a few bytes the index cannot be written either: the next
            # open marks it again.


async def _open(place: IndexPlace) -> IndexBackend:
    """Open the folder's shard: loaded by its first use when it exists, created now when not.

    Loading a shard reads all its segments (seconds at a million points): a folder opened
    for what does not search or write (an import that finds nothing new) never loads it.
    """
    if place.url:
        raise FolderFormatError(
            f"memory folder {place.folder} keeps its index in {place.folder / 'index'} (Qdrant "
            "Edge), not on a server; drop --qdrant-url, or import into a new folder to use a "
            "server"
        )
    shard, dims = place.folder / "index", place.dims

    async def load() -> IndexBackend:
        from .edge import EdgeIndex

        return await EdgeIndex.open(shard, dims=dims)

    if (shard / CONFIG_FILE).is_file():
        return DeferredIndex(load, {"kind": EDGE, "path": str(shard)}, ownership=EdgeOwner(shard))
    return await load()  # a missing shard is created (and found empty) at once


EDGE_KIND = IndexKind(EDGE, _open, files=_FILES)

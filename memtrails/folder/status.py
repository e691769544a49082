"""What ``memtrails status`` shows about a folder: counts, sources, model, index, disk use."""

from __future__ import annotations

import asyncio
import os
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .manifest import read_checkpoint, scrub_rules
from .opening import Folder

__all__ = ["MemoryStatus", "disk_bytes", "folder_status"]


@dataclass(frozen=True, slots=True)
class MemoryStatus:
    """What ``memtrails status`` shows."""

    path: Path
    records: int
    indexed: int
    points: int
    sources: dict[str, int]
    model: dict[str, Any]
    index: dict[str, Any]
    log_bytes: int
    pending_bytes: int
    disk_bytes: int
    watermarks: dict[str, dict[str, Any]]
    secrets: dict[str, Any]  # {"rules": [...]}: the secret rule sets its records were scrubbed with

    def to_json(self) -> dict[str, Any]:
        """Return the status as plain JSON values."""
        out = asdict(self)
        out["path"] = str(self.path)
        return out


def disk_bytes(folder: Path) -> int:
    """Return the blocks the folder takes on disk, in bytes (blocking)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with suppress(OSError):
                # Blocks, not sizes: the index preallocates sparse files (du, not ls).
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


async def folder_status(folder: Folder) -> MemoryStatus:
    """Return counts, sources, model, index and disk use of an open folder."""
    indexed = await folder.index.count_records()
    points = await folder.index.count_points()
    checkpoint = await asyncio.to_thread(read_checkpoint, folder.path)
    disk = await asyncio.to_thread(disk_bytes, folder.path)
    return MemoryStatus(
        path=folder.path,
        records=len(folder.table),
        indexed=indexed,
        points=points,
        sources=dict(sorted(folder.table.per_source().items())),
        model=dict(folder.manifest["embedding"]),
        index=folder.index.describe(),
        log_bytes=folder.log.size,
        pending_bytes=folder.log.size - checkpoint,
        disk_bytes=disk,
        watermarks={
            source: {**entry["state"], "saved": entry.get("saved")}
            for source, entry in folder.positions.entries().items()
            if isinstance(entry.get("state"), dict) and "cursor" in entry["state"]
        },
        secrets={"rules": scrub_rules(folder.manifest)},
    )

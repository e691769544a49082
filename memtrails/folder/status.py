"""What ``memtrails status`` shows about a folder: counts, sources, model, index, disk use."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .disk import INDEX_DIR, folder_disk_bytes, index_mark
from .index.deferred import DeferredIndex
from .manifest import read_checkpoint, read_checkpoint_counts, scrub_rules
from .opening import Folder

__all__ = ["MemoryStatus", "folder_status", "index_counts"]


@dataclass(frozen=True, slots=True)
class MemoryStatus:
    """What ``memtrails status`` shows: what :meth:`Memory.status` returns.

    Attributes:
        path: the memory folder.
        records: live records in the folder; ``indexed``: those in the index; ``points``: the
            index's points (a record may have several passages).
        sources: records per source name.
        model: the embedding model the folder was built with (``kind``, ``model_id``, ``dims``).
        index: the index backend (``kind``, and its ``path`` or ``url``).
        log_bytes: the record log's size; ``pending_bytes``: its bytes past the index's
            checkpoint (not yet indexed); ``disk_bytes``: the whole folder's use.
        watermarks: each :func:`from_cursor` source's saved position, with when it was saved.
        secrets: ``{"rules": [...]}``, the versions of the secret rule sets its records
            were scrubbed with.
        counted: ``"index"`` when ``indexed`` and ``points`` were counted now,
            ``"checkpoint"`` when read from the index's last checkpoint (it was not loaded).
        disk_counted: ``"walk"`` or ``"checkpoint"``, the same for the index's disk use.

    :meth:`to_json` returns the same as plain JSON values (``memtrails status --json``).

    Example, with the test embedder:

        >>> import asyncio, tempfile
        >>> from memtrails import Memory
        >>> from memtrails.testing import HashingEmbedder
        >>> async def status(folder):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         await memory.ingest([{"id": "a", "text": "one"}, {"id": "b", "text": "two"}])
        ...         return await memory.status()
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     status = asyncio.run(status(folder))
        >>> status.records, status.indexed, status.sources, status.model["model_id"]
        (2, 2, {'custom': 2}, 'hashing-words-384')
    """

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
    # Where `indexed` and `points` come from: "index" (counted now) or "checkpoint" (counted
    # when the index was last closed after a change, kept in index.json; it was not loaded).
    counted: str = "index"
    # Where the index's part of `disk_bytes` comes from: "walk" (its files read now) or
    # "checkpoint" (kept with the counts, as the writer's close after the index last changed
    # found it: a later load may tidy a few journal files, tens of KB, that it still counts).
    disk_counted: str = "walk"

    def to_json(self) -> dict[str, Any]:
        """Return the status as plain JSON values."""
        out = asdict(self)
        out["path"] = str(self.path)
        return out


async def folder_status(folder: Folder) -> MemoryStatus:
    """Return counts, sources, model, index and disk use of an open folder."""
    checkpoint = await asyncio.to_thread(read_checkpoint, folder.path)
    indexed, points, counted, index_bytes = await index_counts(folder)
    # The index's disk use kept with its counts stands in for a walk of its files (~13k at 1M
    # records: 0.1 s) when they do; else the walk runs while the table counts its sources
    # (SQLite lets go of the interpreter while it counts).
    walking = asyncio.ensure_future(asyncio.to_thread(folder_disk_bytes, folder.path, index_bytes))
    try:
        sources = dict(sorted(folder.table.per_source().items()))
    finally:
        disk = await walking
    return MemoryStatus(
        path=folder.path,
        records=len(folder.table),
        indexed=indexed,
        points=points,
        sources=sources,
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
        counted=counted,
        disk_counted="walk" if index_bytes is None else "checkpoint",
    )


async def index_counts(folder: Folder) -> tuple[int, int, str, int | None]:
    """Return the index's (records, points), where they came from (see MemoryStatus), and
    the index's bytes on disk kept with them (None: not kept, or counted now).

    The counts kept in index.json stand in for an index not loaded when they were taken at
    the log's end, which is also this writer's checkpoint: then no line of the log is past
    the index, and every change to the index since dropped them or was counted again. Kept
    with its mark (the index folder's outline, a few dozen ``lstat`` calls), they also need
    that outline unchanged: segments made or dropped since were not this folder's writer's.
    Else (a crash, lines not yet indexed, a folder of an older version, an index changed
    behind the folder's back) the index is loaded and counted: seconds at a million records,
    but exact.
    """
    index = folder.index
    if isinstance(index, DeferredIndex) and not index.opened:
        kept = await asyncio.to_thread(read_checkpoint_counts, folder.path)
        if kept is not None and kept.offset == folder.log.size == folder.writer.checkpoint:
            if kept.index_disk is None:  # counts kept by an earlier version: walk for the rest
                return kept.records, kept.points, "checkpoint", None
            size, mark = kept.index_disk
            if await asyncio.to_thread(index_mark, folder.path / INDEX_DIR) == mark:
                return kept.records, kept.points, "checkpoint", size
    return await index.count_records(), await index.count_points(), "index", None

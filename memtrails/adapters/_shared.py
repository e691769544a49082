"""What the framework adapters share: the search they run and the metadata they give a hit
or a record (the same keys in each framework)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..folder.search import SearchHit
from ..keys import record_uid
from ..memory import Memory
from ..records import MemoryRecord

__all__ = ["hit_metadata", "home_folder", "record_metadata", "search_home"]


def hit_metadata(hit: SearchHit) -> dict[str, Any]:
    """Return a hit's fields: id, uid, title, kind, author, at (ISO 8601), source, score,
    confident, and attachment when the passage lies in an attached document."""
    metadata: dict[str, Any] = {
        "id": hit.id,
        "uid": hit.uid,
        "title": hit.title,
        "kind": hit.kind,
        "author": hit.author,
        "at": hit.at.iso() if hit.at is not None else None,
        "source": hit.source,
        "score": hit.score,
        "confident": hit.confident,
    }
    if hit.attachment is not None:
        metadata["attachment"] = hit.attachment
    return metadata


def record_metadata(record: MemoryRecord) -> dict[str, Any]:
    """Return a record's fields: id, uid, title, kind, author, at (ISO 8601), source, thread,
    and the record's own ``meta`` (when it has any) under ``meta``."""
    metadata: dict[str, Any] = {
        "id": record.id,
        "uid": record_uid(record.source, record.id),
        "title": record.title,
        "kind": record.kind,
        "author": record.author,
        "at": record.at.iso() if record.at is not None else None,
        "source": record.source,
        "thread": record.thread,
    }
    if record.meta:
        metadata["meta"] = dict(record.meta)
    return metadata


def home_folder(home: str) -> Path:
    """Return the memory folder ``home`` names (``~`` expanded)."""
    return Path(os.path.expanduser(home))


async def search_home(home: str, query: str, k: int, **filters: Any) -> list[SearchHit]:
    """Search the memory at ``home`` once: through the service when one holds the folder,
    else by opening the folder briefly (a missing folder is an error, never a new one).

    ``filters`` are :meth:`Memory.search`'s (kind, author, source, since, until,
    min_confidence)."""
    async with Memory.open(home_folder(home), create=False, brief=True) as memory:
        return await memory.search(query, k, **filters)

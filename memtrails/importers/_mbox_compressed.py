"""A compressed mbox: read whole, or skipped unread when its bytes are those of the last run."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..records import MemoryRecord, RecordError, SourceState
from ._input import open_regular
from ._resume import unfinished

__all__ = ["read_compressed"]


def read_compressed(
    path: Path,
    items: Iterator[MemoryRecord | RecordError | SourceState],
    source: str,
    state: Mapping[str, Any] | None,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Yield ``items`` (the file's messages, not yet read), or skip them when the file is
    the one the last run read whole.

    A compressed file cannot be resumed in the middle, but list archives (Mailman's monthly
    ``.txt.gz``) stop changing once their month is over: those are skipped unread.
    """
    stamp = _stamp(path)
    saved = (state or {}).get("compressed")
    if state and saved == stamp:
        records = int(state.get("records", 0))
        yield SourceState(source, dict(state), mode="incremental", skipped=records)
        return
    why = None if not state else "the compressed file has changed"
    records = duplicates = 0
    for item in items:
        if isinstance(item, SourceState):  # the count of distinct records at the end
            if not item.complete:
                # Cut short: not stamped as read, nor complete (nothing past it is pruned).
                yield unfinished(source, state, mode="full", why=why)
                return
            records, duplicates = int(item.state["records"]), item.duplicates
            continue
        yield item
    end = {"compressed": stamp, "records": records}
    yield SourceState(source, end, mode="full", complete=True, why=why, duplicates=duplicates)


def _stamp(path: Path) -> dict[str, Any]:
    """Return the size and SHA-256 of a file's bytes (a compressed archive is small)."""
    digest = hashlib.sha256()
    with open_regular(path) as f:  # a FIFO put at its name is refused, not waited on
        while chunk := f.read(1 << 20):
            digest.update(chunk)
        size = os.fstat(f.fileno()).st_size
    return {"size": size, "sha256": digest.hexdigest()}

"""Finding a folder's records: an id's uids, and every live record in the order written."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from ..keys import record_uid
from ..portable import js_well_formed
from .log import RecordLog
from .table import Table

__all__ = ["live_lines", "uids_for"]

_BATCH = 256  # lines read per thread hop


async def live_lines(
    table: Table, log: RecordLog, *, source: str | None = None
) -> AsyncIterator[dict[str, Any]]:
    """Yield the log line of every live record (of ``source``, if given), oldest first.

    The set of live records is taken when the iteration starts: a record forgotten or
    replaced while it runs is yielded as it was then (the log is append-only, so its line is
    still there); records written later are not yielded.
    """
    if source is None:
        offsets = sorted(offset for _, offset in table.offsets() if offset >= 0)
    else:
        rows = (table.get(uid) for uid in table.uids_of(source))
        offsets = sorted(row.offset for row in rows if row is not None)
    for start in range(0, len(offsets), _BATCH):
        batch = offsets[start : start + _BATCH]
        for line in await asyncio.to_thread(_read, log, batch):
            yield line


def _read(log: RecordLog, offsets: list[int]) -> list[dict[str, Any]]:
    return [log.read_line(offset) for offset in offsets]


def uids_for(table: Table, id: str, source: str | None) -> list[str]:
    """Return the uids of the live records with this id (of ``source``, if given; else of
    every source, a record's uid accepted as the id too)."""
    # Records are stored under well-formed names (lone surrogates as U+FFFD).
    id = js_well_formed(id)
    if source is not None:
        return [record_uid(js_well_formed(source), id)]
    found = [record_uid(s, id) for s in table.sources()]
    if len(id) == 32 and id not in found:
        found.append(id)  # a uid given as the id
    return [uid for uid in found if uid in table]

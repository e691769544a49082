"""Every live record of a folder, in the order they were written (for readers and exports)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from .log import RecordLog
from .table import Table

__all__ = ["live_lines"]

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

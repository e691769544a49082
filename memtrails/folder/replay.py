"""Read back log lines that the index may lack, as batches of the versions to index."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

from .._threads import iterate_in_thread
from ..items import Staged
from ..records import MemoryRecord
from .log import RecordLog
from .table import Table

__all__ = ["LogBatch", "log_batches"]


class LogBatch(list[Staged]):
    """Log lines ``[start, end)``: every uid they touch, and their live versions to index.

    A line is indexed only if it is its record's current version; older versions and
    tombstones only delete the record's points, which the current version (if any) replaces.
    """

    def __init__(self, start: int, end: int, uids: list[str], live: list[Staged]) -> None:
        super().__init__(live)
        self.start = start
        self.end = end
        self.uids = uids


async def log_batches(
    log: RecordLog, table: Table, start: int, end: int, size: int
) -> AsyncIterator[LogBatch]:
    """Yield the log lines in ``[start, end)`` as batches of at most ``size`` lines."""
    lines = iterate_in_thread(lambda: log.lines(start, end), chunk=size)
    uids: list[str] = []
    live: list[Staged] = []
    first = start
    async with aclosing(lines) as read:
        async for offset, after, obj in read:
            uid = obj["uid"]
            uids.append(uid)
            row = table.get(uid)
            if obj.get("deleted") is not True and row is not None and row.offset == offset:
                live.append(Staged(MemoryRecord.from_json(obj), uid=uid, fp=obj["fp"]))
            if len(uids) >= size:
                yield LogBatch(first, after, uids, live)
                first, uids, live = after, [], []
    if uids:
        yield LogBatch(first, end, uids, live)

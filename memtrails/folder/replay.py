"""Read back log lines that the index may lack, as batches of the versions to index."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any

from .._threads import iterate_in_thread
from ..items import Staged
from ..records import MemoryRecord
from .damaged import LINE_ERRORS, line_uid
from .log import RecordLog
from .table import Table

__all__ = ["LogBatch", "log_batches"]

_log = logging.getLogger("memtrails.folder")


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
    """Yield the log lines in ``[start, end)`` as batches of at most ``size`` lines.

    A damaged line (see ``damaged.py``) is indexed as nothing: its record, when the line
    still names it, only loses its points, and the lines after it are indexed as ever.
    """
    lines = iterate_in_thread(lambda: _read(log, table, start, end), chunk=size)
    uids: list[str] = []
    live: list[Staged] = []
    first = start
    async with aclosing(lines) as read:
        async for after, uid, staged in read:
            if uid is not None:
                uids.append(uid)
            if staged is not None:
                live.append(staged)
            if len(uids) >= size:
                yield LogBatch(first, after, uids, live)
                first, uids, live = after, [], []
    if uids:
        yield LogBatch(first, end, uids, live)


def _read(
    log: RecordLog, table: Table, start: int, end: int
) -> Iterator[tuple[int, str | None, Staged | None]]:
    """Yield ``(next offset, uid, its version to index or None)`` of each line (blocking)."""
    for offset, line in log.raw_lines(start, end):
        after = offset + len(line) + 1
        obj: Any = None
        try:
            obj = json.loads(line)
            uid = obj["uid"]
            if not isinstance(uid, str):
                raise TypeError(f"uid {uid!r} is not a string")
            row = table.get(uid)
            if obj.get("deleted") is True or row is None or row.offset != offset:
                yield after, uid, None
                continue
            staged = Staged(MemoryRecord.from_json(obj), uid=uid, fp=obj["fp"])
        except (*LINE_ERRORS, AttributeError) as exc:
            named = line_uid(line)
            if named is not None and (row := table.get(named)) is not None and row.offset == offset:
                # Opening took the line for its record's (its first bytes are whole): said here.
                _log.warning(
                    "%s: the line at byte %d is damaged (%s: %.120s); its record is left out "
                    "of the index: `memtrails check` lists the damaged lines",
                    log.path,
                    offset,
                    type(exc).__name__,
                    exc,
                )
            yield after, named, None
            continue
        yield after, uid, staged

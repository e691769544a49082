"""A live record's log line for a search, or None: not live, or its line is damaged.

A search reads a few dozen lines of the log (its results, their neighbours, their scripts).
One damaged line (a flipped byte, a hand edit) must not end every search that meets its
record: that record is left out, the others are found, and ``memtrails check`` names the
line.
"""

from __future__ import annotations

import logging
from typing import Any

from .._exceptions import FolderFormatError
from ..records import MemoryRecord
from .log import RecordLog
from .table import Table

__all__ = ["live_line", "live_record", "record_at"]

_log = logging.getLogger("memtrails.folder")


def live_line(uid: str, table: Table, log: RecordLog) -> tuple[int, dict[str, Any]] | None:
    """Return the offset and parsed line of the live record ``uid``; None when it is not
    live or its line cannot be read (blocking: one log read)."""
    row = table.get(uid)
    if row is None:
        return None
    try:
        return row.offset, log.read_line(row.offset)
    except FolderFormatError:
        return None


def record_at(log: RecordLog, offset: int) -> MemoryRecord:
    """Return the record of the log line at ``offset``.

    Raises:
        FolderFormatError: the line is damaged, or holds no record memtrails can read.
    """
    line = log.read_line(offset)
    try:
        return MemoryRecord.from_json(line)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise FolderFormatError(
            f"{log.path}: the line at byte {offset} holds no record memtrails can read "
            f"({type(exc).__name__}: {exc}); `memtrails check` lists the damaged lines"
        ) from exc


def live_record(
    uid: str, table: Table, log: RecordLog, *, warn: bool = False
) -> MemoryRecord | None:
    """Return the live record ``uid``; None when it is not live or its line is damaged
    (then, with ``warn``, said once in the ``memtrails.folder`` log: a search's result left
    out)."""
    row = table.get(uid)
    if row is None:
        return None
    try:
        return record_at(log, row.offset)
    except FolderFormatError as exc:
        if warn:
            _log.warning("a result was left out: %s", exc)
        return None

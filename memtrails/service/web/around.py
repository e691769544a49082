"""A record's surroundings for its page: the records beside it in its source, and its thread."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..._exceptions import FolderFormatError
from ...folder.log import RecordLog
from ...folder.table import Table
from ...records import MemoryRecord

__all__ = ["Around", "Neighbour", "around"]

NEAR = 3  # records of the same source shown on each side
WALK = 200  # log lines looked at on each side for the record's thread and neighbours
_PREVIEW = 160
_LONG_LINE = 1 << 20  # bytes looked back through for a line's start, past a long line
_LONG_READS = 8  # such reads at most, walking back


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A record near another: enough to list it and link to its page."""

    uid: str
    record: MemoryRecord
    preview: str


@dataclass(slots=True)
class Around:
    """Where a record sits: its log offset, the records before and after it of its source (as
    imported, which is the source's order), and the other records of its thread nearby."""

    offset: int
    before: list[Neighbour] = field(default_factory=list)  # nearest first
    after: list[Neighbour] = field(default_factory=list)
    thread: list[Neighbour] = field(default_factory=list)  # by date, the record included


def _neighbour(line: dict[str, Any]) -> Neighbour:
    record = MemoryRecord.from_json(line)
    flat = " ".join(record.text.split())
    preview = flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "\u2026"
    return Neighbour(str(line["uid"]), record, preview)


def _before(log: RecordLog, offset: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield the lines before ``offset``, nearest first (long lines cost a bounded read)."""
    wide = _LONG_READS
    at: int | None = offset
    while at is not None and at > 0:
        found = log.around(at)[0]
        if found is None and wide > 0:  # a line over 16 KiB (a long mail) between
            wide -= 1
            found = log.around(at, reach=_LONG_LINE)[0]
        if found is None:
            return
        at = found
        try:
            yield at, log.read_line(at)
        except FolderFormatError:
            continue  # a damaged line (memtrails check lists it): its record is not shown


def _after(log: RecordLog, offset: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield the lines after the one at ``offset``, nearest first (read in order, in chunks)."""
    lines = log.raw_lines(offset)
    next(lines, None)  # the record's own
    for at, raw in lines:
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a damaged line (memtrails check lists it): its record is not shown
        if isinstance(line, dict):
            yield at, line


def around(table: Table, log: RecordLog, uid: str) -> Around | None:
    """Return the surroundings of the live record ``uid`` (None when there is none).

    Blocking: reads at most :data:`WALK` log lines on each side. An import writes a
    source's records in their order (a mailbox's messages, a chat's turns, a file's
    lines), so the lines next to a record's own are its neighbours there; lines of other
    sources, and versions since replaced or forgotten, are passed over.
    """
    row = table.get(uid)
    if row is None:
        return None
    line = log.read_line(row.offset)
    source, thread = line.get("source"), line.get("thread")
    out = Around(row.offset)
    in_thread: list[Neighbour] = [_neighbour(line)] if thread else []
    for walk, near in ((_before, out.before), (_after, out.after)):
        for offset, other in itertools.islice(walk(log, row.offset), WALK):
            other_uid = other.get("uid")
            current = table.get(other_uid) if isinstance(other_uid, str) else None
            if other.get("deleted") or current is None or current.offset != offset:
                continue
            if other.get("source") != source:
                continue
            if len(near) < NEAR:
                near.append(_neighbour(other))
            if thread and other.get("thread") == thread:
                in_thread.append(_neighbour(other))
            elif not thread and len(near) >= NEAR:
                break
    if len(in_thread) > 1:
        out.thread = sorted(in_thread, key=lambda n: n.record.at.ms if n.record.at else 0)
    return out

"""A record's surroundings for its page: the records beside it in its source, and its thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...folder.log import RecordLog
from ...folder.table import Table
from ...records import MemoryRecord

__all__ = ["Around", "Neighbour", "around"]

NEAR = 3  # records of the same source shown on each side
WALK = 200  # log lines looked at on each side for the record's thread and neighbours
_PREVIEW = 160
_LONG_LINE = 1 << 22  # bytes looked through for a line's end, past a long line


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


def _step(log: RecordLog, offset: int, side: int) -> int | None:
    """Return the offset of the line before (0) or after (1) the one at ``offset``."""
    found = log.around(offset)[side]
    if found is None and (offset > 0 if side == 0 else offset < log.size):
        found = log.around(offset, reach=_LONG_LINE)[side]  # a long line (a mail) between
    return found


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
    for side, near in ((0, out.before), (1, out.after)):
        offset: int | None = row.offset
        for _ in range(WALK):
            offset = _step(log, offset, side) if offset is not None else None
            if offset is None:
                break
            other = log.read_line(offset)
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

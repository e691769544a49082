"""Log lines memtrails cannot read (a disk error, an edit): read past, their records left out.

``records.jsonl`` is the source of truth, so a damaged line is never rewritten; but one line
(a flipped byte, bytes inserted or lost mid-file) must not stop the folder from opening or
its index from being rebuilt. Reading the log line by line, a damaged line is set aside and
its record, when the line's first bytes still name it, is taken for forgotten: the record
cannot be read, so it is left out (never an older version of it, nor a record its damaged
tombstone forgot), and adding its source again brings it back.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..keys import fingerprint, record_uid
from ..records import MemoryRecord
from .log import LogEntry, RecordLog, _parse_entry

__all__ = [
    "LINE_ERRORS",
    "ChangedLine",
    "DamagedLine",
    "check_line",
    "cut_tail_note",
    "damaged_notes",
    "line_uid",
    "readable_entries",
]

# What parsing a damaged line raises (UnicodeDecodeError is a ValueError; RecursionError:
# brackets nested past the JSON parser's depth; OverflowError: a time out of range).
LINE_ERRORS = (ValueError, KeyError, TypeError, RecursionError, OverflowError)
_HEX = frozenset("0123456789abcdef")
_UID_KEY = b'"uid":"'
_UID_REACH = 64  # how far into a damaged line its uid is looked for
_log = logging.getLogger("memtrails.folder")
_SHOWN = 5  # damaged lines named one by one when a folder opens; the rest are counted


@dataclass(frozen=True, slots=True)
class DamagedLine:
    """A log line that cannot be read: where it starts, the record its first bytes still
    name (None when they are damaged too), and what is wrong with it."""

    offset: int
    uid: str | None
    why: str


def line_uid(line: bytes) -> str | None:
    """Return the uid a damaged log line starts with, or None when its first bytes no
    longer name one (a few bytes inserted before it are read past)."""
    at = line.find(_UID_KEY, 0, _UID_REACH)
    if at < 0:
        return None
    start = at + len(_UID_KEY)
    uid = line[start : start + 32].decode("ascii", "replace")
    if line[start + 32 : start + 34] != b'",' or len(uid) != 32 or not set(uid) <= _HEX:
        return None
    return uid


class ChangedLine(ValueError):
    """A line that reads as the record ``uid``, but not as it was written: its fingerprint
    no longer matches (a byte changed inside its text). Its record is still read."""

    def __init__(self, uid: str, message: str) -> None:
        super().__init__(message)
        self.uid = uid


def check_line(line: bytes) -> tuple[str, bool]:
    """Check that ``line`` is a whole memtrails log line; return its uid and whether it is
    a tombstone.

    Raises:
        ChangedLine: its record no longer matches its fingerprint.
        ValueError, KeyError, TypeError, RecursionError: it is not a memtrails log line
            (see ``LINE_ERRORS``).
    """
    obj = json.loads(line)
    uid, deleted = _check_object(obj)
    # As git fsck checks its objects' hashes: a byte changed inside a record's text after it
    # was written (a disk's bit rot, a hand edit) leaves the line valid JSON.
    if not deleted and fingerprint(MemoryRecord.from_json(obj)) != obj["fp"]:
        raise ChangedLine(
            uid,
            f"the record {obj['id']!r} of {obj['source']!r} no longer matches its "
            "fingerprint: the line was changed after it was written",
        )
    return uid, deleted


def _check_object(obj: Any) -> tuple[str, bool]:
    """Check a parsed line's fields (all but its fingerprint, see :func:`check_line`)."""
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    uid, source, id = obj["uid"], obj["source"], obj["id"]
    if not (isinstance(uid, str) and len(uid) == 32 and set(uid) <= _HEX):
        raise ValueError(f"uid {uid!r} is not 32 hex digits")
    if not isinstance(source, str) or not isinstance(id, str):
        raise ValueError("source and id must be strings")
    if record_uid(source, id) != uid:
        raise ValueError(f"uid {uid} is not the uid of source {source!r} and id {id!r}")
    if obj.get("deleted") is True:
        return uid, True
    fp = obj["fp"]
    if not (isinstance(fp, str) and len(fp) == 64 and set(fp) <= _HEX):
        raise ValueError(f"fingerprint {fp!r} is not 64 hex digits")
    return uid, False


def _whole_entry(line: bytes, offset: int) -> LogEntry:
    obj = json.loads(line)
    uid, deleted = _check_object(obj)
    if not deleted:
        MemoryRecord.from_json(obj)  # its fields are readable
    return LogEntry(offset, uid, None if deleted else obj["fp"], obj["source"])


def readable_entries(
    log: RecordLog, start: int, damaged: list[DamagedLine], *, whole: bool = False
) -> Iterator[LogEntry]:
    """Yield the entry of every line of ``log`` from ``start`` (blocking), as
    :meth:`RecordLog.scan` does, past the lines it cannot read.

    Each damaged line goes into ``damaged``; one whose first bytes still name its record
    yields a tombstone's entry for it (its record cannot be read: it is not live). With
    ``whole``, every line is parsed and its fields checked as ``memtrails check`` does (all
    but its fingerprint: a changed text is still read), not only its first bytes: for a
    rebuild, so that no row is left pointing at a line that cannot be read.
    """
    parse = _whole_entry if whole else _parse_entry
    for offset, line in log.raw_lines(start):
        try:
            entry = parse(line, offset)
        except LINE_ERRORS as exc:
            bad = DamagedLine(offset, line_uid(line), f"{type(exc).__name__}: {exc}")
            damaged.append(bad)
            if whole:  # a rebuild (check --repair, reindex): no opening's note says it
                _log.warning(
                    "%s: the line at byte %d is damaged (%.120s); its record is left out",
                    log.path,
                    offset,
                    bad.why,
                )
            if bad.uid is None:
                continue
            entry = LogEntry(offset, bad.uid, None, "")
        yield entry


def damaged_notes(path: Path, damaged: list[DamagedLine]) -> list[str]:
    """Say, for the opening's notes, which lines of the log at ``path`` were left out."""
    notes = [
        f"{path.name}: the line at byte {bad.offset} is damaged ({bad.why:.120}); its record "
        "is left out (`memtrails check` lists the damaged lines: restore records.jsonl from a "
        "backup, or add the record's source again, to get it back)"
        for bad in damaged[:_SHOWN]
    ]
    if len(damaged) > _SHOWN:
        notes.append(f"{path.name}: {len(damaged) - _SHOWN} more damaged lines are left out")
    return notes


def _lost_rows(table: Path, offset: int) -> dict[str, int]:
    """Count, by source, the records ``table`` (table.sqlite, as the last run left it) has
    at log offsets from ``offset`` on: the records a cut tail took with it."""
    if not table.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{table}?mode=ro", uri=True)
    except sqlite3.Error:
        return {}
    try:
        rows = db.execute(
            "SELECT s.name, count(*) FROM records r JOIN sources s ON r.source = s.id "
            "WHERE r.offset >= ? GROUP BY s.name ORDER BY s.name",
            (offset,),
        ).fetchall()
    except sqlite3.Error:  # unreadable, or another version's: the rebuild says so
        return {}
    finally:
        db.close()
    return {str(name): int(count) for name, count in rows}


def cut_tail_note(log: RecordLog, dropped: int, table: Path) -> str:
    """Say what cutting ``dropped`` bytes off the end of ``log`` (now cut) was, in plain words.

    An unfinished last line is a write a crash interrupted, never reported added. A run of
    NUL bytes (``log.zeroed``) is the end of the file a crash left zeroed: the filesystem
    had made the file longer but not written its last block. What the table held there was
    reported added on a system whose disk did not keep what it was told to (a drive's
    cache, a virtual machine's disk): those records are named by source, to add again.
    """
    name = log.path.name
    if not log.zeroed:
        return (
            f"{name}: cut an unfinished last line ({dropped} bytes; a write interrupted "
            "before it was reported added)"
        )
    torn = dropped - log.zeroed
    said = (
        f"{name}: its last {log.zeroed} bytes were NUL bytes, not records (a crash left the "
        "end of the file zeroed before the disk had written it); they were cut off"
        + (f", with the unfinished line before them ({torn} bytes)" if torn else "")
        + f"; the {log.size} bytes before them are whole and kept"
    )
    lost = _lost_rows(table, log.size)
    if lost:
        count = sum(lost.values())
        sources = ", ".join(f"{source!r} ({n})" for source, n in list(lost.items())[:5])
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        said += (
            f". {count} record{'s' if count != 1 else ''} added before the crash {'were' if count != 1 else 'was'} "
            f"in the zeroed bytes and {'are' if count != 1 else 'is'} lost from the log, of the sources "
            f"{sources}{more}: add those sources again to get them back"
        )
    return said

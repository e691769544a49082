"""JSON Lines lines that give an id again: the later line is the record's newer version.

A file appended to (a log of tickets, an export re-run into the same file) gives a record's
id again when the record changed. Read from where the last run stopped, such a line is the
only one with its id and updates the record; so that a full read keeps the same version,
a line whose id a later line's record has too is not kept: :func:`read_ahead` reads the
ids ahead (the file once more, before its records), and the importer makes each such line
an error naming the line that replaces it, or, when the two lines are the same bytes,
counts it as a duplicate (:class:`Versions`). A stream read once (a pipe) cannot be read
ahead: there the first line with an id is kept and a later one is the error.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..record_values import float_id
from ..records import MemoryRecord, RecordError
from ._input import open_input
from ._jsonl_dates import DayOrder, seen_lines
from ._jsonl_source import bounded_lines, utf16_lines

__all__ = ["ID_KEYS", "IdReader", "Make", "Versions", "read_ahead", "unwrap_id"]

#: The keys a line's id is read from by default, the first the line has: ``id``, then an id
#: that is unique by construction (MongoDB's and CouchDB's ``_id``, a ``uuid`` or a ``guid``).
#: Not an id scoped to something else (``message_id``, ``msgId``, ``dia_id``, ``event_id``,
#: ``user_id``): one file may hold several chats whose message 1 is not the same record, and
#: a line whose id a later line gives again is that record's older version, not kept. Such a
#: key stays in ``meta``; ``fields={"id": "message_id"}`` names it where it is unique.
ID_KEYS = ("id", "_id", "uuid", "guid")
# What MongoDB's Extended JSON wraps an id in: {"$oid": "..."}, {"$uuid": "..."}, a number.
_ID_WRAPPERS = frozenset({"$oid", "$uuid", "$numberLong", "$numberInt"})

_SHOWN = 80  # an id is shown this long at most in an error
_BOM = b"\xef\xbb\xbf"


#: What makes a line's item (the importer's own function): a record, an error, or None.
Make = Callable[[bytes, int], "MemoryRecord | RecordError | None"]


def unwrap_id(value: Any) -> Any:
    """The id MongoDB's Extended JSON wraps (``{"$oid": "6634..."}``: its string), else
    ``value`` as it is."""
    if isinstance(value, dict) and len(value) == 1:
        ((name, inner),) = value.items()
        if name in _ID_WRAPPERS and isinstance(inner, str):
            return int(inner) if name.startswith("$number") and inner.isdigit() else inner
    return value


class IdReader:
    """Reads the id a line gives under the first of ``keys`` it has, as ``from_jsonl`` names
    its record, without making the record: ``None`` when the line gives none (no such key,
    not JSON, too big).

    ``too_big(raw)``: the line holds more JSON values than the importer parses.
    """

    def __init__(self, keys: tuple[str, ...], too_big: Callable[[bytes], bool]) -> None:
        self.keys = keys
        key = keys[0]
        self.needle = json.dumps(key, ensure_ascii=False).encode()
        self._others = [json.dumps(k, ensure_ascii=False).encode() for k in keys[1:]]
        # {"id": "a", ...}: the key first, and written once, is read without parsing the line.
        self._first = re.compile(
            rb"\s*\{\s*"
            + re.escape(self.needle)
            + rb'\s*:\s*("(?:[^"\\\n]|\\.)*"|-?\d{1,18})\s*[,}]'
        )
        self._too_big = too_big

    def __call__(self, raw: bytes) -> str | None:
        if self.needle not in raw and not any(other in raw for other in self._others):
            return None
        m = self._first.match(raw)
        try:
            if m is not None and raw.count(self.needle) == 1:
                token = m.group(1)
                if token[0] != 34:  # a number
                    return str(int(token))
                if b"\\" not in token:  # a string without escapes: its UTF-8 is the id
                    return token[1:-1].decode()
                value = json.loads(token)
            elif self._too_big(raw):
                return None
            else:
                obj = json.loads(raw)
                key = (
                    next((k for k in self.keys if k in obj), None)
                    if isinstance(obj, dict)
                    else None
                )
                value = unwrap_id(obj[key]) if key is not None else None
                if key != self.keys[0] and not (value and isinstance(value, str | int)):
                    return None  # as from_jsonl reads it: the line names the record
        except (ValueError, RecursionError):  # the line's own error, when it is read
            return None
        if isinstance(value, float):  # 12.0 names the record 12, as from_jsonl reads it
            try:
                return float_id("id", value)
            except ValueError:
                return None
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        return str(value)


class Versions:
    """Which lines of one read are not kept because another line gives their id.

    :meth:`ahead` knows, having read the ids ahead, every line that a later one replaces;
    :meth:`stream` learns the ids as the lines come. ``duplicates``: lines not kept that
    were the same bytes as the line kept (copies, not errors). A line replaces another only
    when it makes a record (``make``): a later line that is an error replaces none.
    """

    def __init__(
        self, read_id: IdReader, make: Make, newer: dict[int, tuple[int, str, bool]] | None
    ) -> None:
        self._read_id = read_id
        self._make = make
        self._newer = newer
        self._seen: dict[str, tuple[int, int]] = {}
        self.duplicates = 0

    @classmethod
    def ahead(
        cls,
        lines: Callable[[], Iterable[tuple[bytes, int]]],
        first: int,
        limit: int,
        read_id: IdReader,
        make: Make,
    ) -> Versions:
        """Read the ids of ``lines()`` (:func:`~memtrails.importers._jsonl_source.bounded_lines`
        from line ``first``, 0-based): each line whose id a later line gives again is not
        kept.

        A first read keeps 8 bytes a line (the id's hash), to find the ids given more than
        once: a dict of every id took 226 MiB for a file of a million lines. Only when some
        id (or some hash) comes again are the lines read once more, their records made for
        the lines whose ids do (rare: the others are parsed once, by the read proper, if at
        all), with one entry per such id and one per line replaced.
        """
        again = _repeated(lines(), first, limit, read_id)
        newer: dict[int, tuple[int, str, bool]] = {}
        if not again:
            return cls(read_id, make, newer)
        seen: dict[str, tuple[int, int]] = {}
        for raw, number, found in _ids(lines(), first, limit, read_id):
            if hash(found) not in again:
                continue
            digest = _digest(raw)
            before = seen.get(found)
            if before is not None:
                if not _makes(make, raw, number, found):
                    continue
                newer[before[0]] = (number, found, before[1] == digest)
            seen[found] = (number, digest)
        return cls(read_id, make, newer)

    @classmethod
    def stream(cls, read_id: IdReader, make: Make) -> Versions:
        """For a stream read once: a line reusing an earlier record's id is not kept (each
        line with an id is made twice, here and by the read proper)."""
        return cls(read_id, make, None)

    def verdict(self, raw: bytes, number: int) -> str | None:
        """None: line ``number`` is kept; "": it is a copy of the line kept (counted in
        ``duplicates``); else the reason of its error."""
        if self._newer is not None:
            later = self._newer.get(number)
            if later is None:
                return None
            found, copy, reason = later[1], later[2], _older(later[1], later[0])
        else:
            read = self._read_id(raw)
            if read is None or not _makes(self._make, raw, number, read):
                return None
            found, digest = read, _digest(raw)
            before = self._seen.setdefault(found, (number, digest))
            if before[0] == number:
                return None
            copy, reason = before[1] == digest, _reused(found, before[0])
        if copy:
            self.duplicates += 1
            return ""
        return reason


def read_ahead(
    path: Path,
    source: str,
    utf16: bool,
    start: tuple[int, int],
    limit: int,
    read_id: IdReader,
    make: Make,
    order: DayOrder | None = None,
) -> Versions | None:
    """:meth:`Versions.ahead` of the file ``path`` opened once more (twice when an id comes
    again), from ``start`` (byte offset and lines before it); None when it cannot be. Each
    line read is shown to ``order`` too (the order of its days, ``_jsonl_dates``)."""
    with ExitStack() as opened:

        def lines() -> Iterator[tuple[bytes, int]]:
            again = opened.enter_context(open_input(path, source))
            if start[0]:
                again.file.seek(start[0])
            text = utf16_lines(again.file) if utf16 else None
            if text is not None:
                opened.callback(text.close)
            lines = bounded_lines(text or again.file, limit)
            return lines if order is None else seen_lines(lines, order)

        try:
            return Versions.ahead(lines, start[1], limit, read_id, make)
        except (SourceError, OSError):
            return None
    return None  # not reached: ExitStack swallows no error, but mypy cannot tell


def _ids(
    lines: Iterable[tuple[bytes, int]], first: int, limit: int, read_id: IdReader
) -> Iterator[tuple[bytes, int, str]]:
    """Each line that gives an id, with its number (1-based) and the id; a read that fails
    (damaged data) ends here, as the read proper stops there too, and says so."""
    number = first
    try:
        for raw, size in lines:
            number += 1
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            found = read_id(raw) if size <= limit else None
            if found is not None:
                yield raw, number, found
    except OSError:
        return


def _repeated(
    lines: Iterable[tuple[bytes, int]], first: int, limit: int, read_id: IdReader
) -> set[int]:
    """The hashes of the ids given on more than one line (and any that collide)."""
    hashes = array("q", (hash(found) for _, _, found in _ids(lines, first, limit, read_id)))
    if len(hashes) < 2:
        return set()
    import numpy as np  # here: most imports never read ids ahead

    ordered = np.sort(np.frombuffer(hashes, dtype=np.int64))
    del hashes
    return {int(h) for h in ordered[1:][ordered[1:] == ordered[:-1]]}


def _makes(make: Make, raw: bytes, number: int, found: str) -> bool:
    """Whether line ``number`` makes a record, named ``found``."""
    item = make(raw, number)
    return isinstance(item, MemoryRecord) and item.id == found


def _digest(raw: bytes) -> int:
    """What tells a copy of a line (the same bytes) from another version, in one read."""
    return hash(raw.rstrip(b"\r\n"))


def _older(found: str, later: int) -> str:
    return (
        f"id {_shown(found)} is given again on line {later}, the record's newer version: "
        "this line is not kept"
    )


def _reused(found: str, earlier: int) -> str:
    return (
        f"id {_shown(found)} was given on line {earlier} already; a stream is read once, so "
        "the first line is kept and this later version is not"
    )


def _shown(found: str) -> str:
    return repr(found if len(found) <= _SHOWN else found[:_SHOWN] + "...")

"""The items that flow through memtrails: records, per-record errors, timestamps (an import's
report is in reports.py, named here too)."""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from .dates import iso_from_ms, utc_from_local_ms
from .day_order import unordered
from .export_dates import digits_ms, is_number, is_zero_date, number_ms, stamp_ms, text_ms
from .record_values import NUMBER_UNITS, id_value, plain_value, text_value, unstorable_time
from .reports import KEPT_ERRORS, ImportReport, SourceReport

__all__ = [
    "KEPT_ERRORS",
    "NUMBER_UNITS",
    "RECORD_FIELDS",
    "At",
    "AtLike",
    "ImportReport",
    "Item",
    "MemoryRecord",
    "RecordError",
    "Seen",
    "SourceReport",
    "SourceState",
    "unstorable_time",
]

_MIN_MS, _MAX_MS = -8.64e15, 8.64e15  # the range of a JavaScript Date
# The form toISOString writes (and most exports): read directly, as Date.parse reads it.
_UTC_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{3}))?Z")
_EPOCH_DAY = date(1970, 1, 1).toordinal()
# The fields that hold text; a driver's bytes or UUID in one is read as its text.
_NAMES = ("id", "text", "kind", "author", "title", "source", "thread")


def _utc_iso_ms(value: str) -> int | None:
    """Return the instant of a valid ``YYYY-MM-DDTHH:MM:SS[.sss]Z`` string, else None."""
    m = _UTC_ISO.fullmatch(value)
    if m is None:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    if int(h) > 23 or int(mi) > 59 or int(s) > 59:
        return None  # 24:00 and leap seconds are left to parse_date
    try:
        day = date(int(y), int(mo), int(d)).toordinal() - _EPOCH_DAY
    except ValueError:
        return None  # year 0, month 13, 30 February: left to parse_date
    return ((day * 24 + int(h)) * 60 + int(mi)) * 60_000 + int(s) * 1000 + int(frac or 0)


_WRITE_IT = "write it year first (2024-04-05T10:30:00Z) or give a datetime"


@dataclass(frozen=True, slots=True, order=True)
class At:
    """A point in time, kept as JavaScript does: whole milliseconds since the Unix epoch, UTC.

    Build one with :meth:`At.of` from what a user would pass: an ISO 8601 or RFC 2822 string
    (anything ``Date.parse`` reads), a ``datetime`` (naive means local time), a ``date``
    (UTC midnight, as an ISO 8601 date is read), or a number
    of seconds, milliseconds, microseconds or nanoseconds since the epoch
    (:data:`memtrails.export_dates.SECONDS_BELOW`). It prints as ISO 8601 in UTC.

    Example:
        >>> from datetime import date
        >>> from memtrails import At
        >>> print(At.of("2024-05-03T10:00:00+02:00"))
        2024-05-03T08:00:00.000Z
        >>> At.of(date(2024, 5, 3)) == At.of(1714694400) == At.of(1714694400000)
        True
    """

    ms: int

    def __post_init__(self) -> None:
        if not _MIN_MS <= self.ms <= _MAX_MS:
            raise ValueError(f"`ms` is outside the range of a JavaScript Date: {self.ms}")

    @classmethod
    def of(cls, value: AtLike) -> At:
        """Return the timestamp ``value`` stands for.

        Raises:
            ValueError: the value is not a date JavaScript's ``Date.parse`` would read, nor
                one an export writes otherwise (``export_dates.exported_ms``), or is a day
                whose order its numbers leave open ("05/04/2024": conformance/README.md).
            TypeError: the value is of a type that cannot be a timestamp.
        """
        if isinstance(value, At):
            return value
        if isinstance(value, bool):
            raise TypeError("a timestamp cannot be a bool")
        if isinstance(value, int | float):
            counted = stamp_ms(value)
            if not _MIN_MS <= counted <= _MAX_MS:
                raise ValueError(f"{unstorable_time(value)}; {NUMBER_UNITS}")
            return cls(counted)
        if isinstance(value, datetime):
            wall = calendar.timegm(value.timetuple()) * 1000 + value.microsecond // 1000
            if value.utcoffset() is None:  # no tzinfo, or one that gives no offset: naive
                # Local time, as ``new Date(y, m, ...)``; fold=1: a repeated hour's second.
                return cls(utc_from_local_ms(wall, fold=value.fold))
            offset = value.utcoffset()
            return cls(wall - (int(offset.total_seconds() * 1000) if offset else 0))
        if isinstance(value, date):  # a DATE column: UTC midnight, as Date.parse reads "2024-05-03"
            return cls((value.toordinal() - _EPOCH_DAY) * 86_400_000)
        if isinstance(value, str):
            ms = _utc_iso_ms(value)
            if ms is None:
                # What Date.parse reads, but "0" and "20240503103200" as exports mean them;
                # "1700000000", "20231114T221320Z", "May 8th, 2023": as exports write dates.
                ms = text_ms(value)
            if ms is None:
                # "05/04/2024" is 5 April or 4 May: only the caller knows (day_order.py).
                why = " can be read day first or month first" if unordered(value) else ""
                raise ValueError(f"not a date: {value!r}{why}; {_WRITE_IT}")
            return cls(ms)
        raise TypeError(
            f"cannot read a timestamp from {type(value).__name__}: give a datetime, a date, an "
            "ISO 8601 string or a number of seconds since 1970"
        )

    def iso(self) -> str:
        """Return the ISO 8601 form with ``Z``, as ``Date.prototype.toISOString`` writes it."""
        return iso_from_ms(self.ms)

    def __str__(self) -> str:
        return self.iso()


AtLike: TypeAlias = "At | datetime | date | str | int | float"


def _record_at(given: AtLike) -> At | None:
    """A record's time: a number (or a string of one) is read as a JSON Lines field's is
    (``export_dates.number_ms``), so 0, -1 and a count are no date, not January 1970. A
    driver's value is read as the plain one it stands for (``record_values.plain_value``:
    a Decimal or numpy number as the same number, bytes as their text)."""
    value = plain_value(given)
    if value is None:
        return None  # pandas' NaT, numpy's
    if isinstance(value, bytes):
        value = text_value("at", value)
    if isinstance(value, float) and math.isinf(value) and isinstance(given, Decimal):
        raise ValueError(f"{unstorable_time(given)}; {NUMBER_UNITS}")
    if isinstance(value, int) and value.bit_length() > 80:  # past any unit; str() may refuse
        raise ValueError(f"{unstorable_time(value)}; {NUMBER_UNITS}")
    if isinstance(value, str) and is_zero_date(value):
        return None  # MySQL's "0000-00-00 00:00:00": never set
    if isinstance(value, date) and is_zero_date(value.isoformat()):
        return None  # date.min, datetime.max (a driver's -infinity, infinity): never set
    if isinstance(value, str) and is_number(value.strip()):
        ms = digits_ms(value.strip())
    elif isinstance(value, int | float) and not isinstance(value, bool):
        ms = number_ms(value)
    else:
        return At.of(value)
    if ms is None:
        return None
    if not _MIN_MS <= ms <= _MAX_MS:
        raise ValueError(f"{unstorable_time(value)}; {NUMBER_UNITS}")
    return At(ms)


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One thing to remember: a mail, a chat message, a commit, a note, a row.

    Args:
        id: the record's id within its source (a Message-ID, a commit sha, a row key).
        text: the body to embed and search (None, a NULL column, is an empty text: the
            record is its title; without one it is an error).
        kind: what it is: ``"mail"``, ``"chat"``, ``"commit"``, ``"file"``, ``"note"``, ...
        author: who wrote it.
        title: a subject or heading.
        at: when it was written (anything :meth:`At.of` accepts, and a driver's Decimal,
            numpy scalar or bytes: ``record_values.plain_value``); a number that is no date
            (0, -1, any below 1e8 but a year; ``export_dates.number_ms``) is None, and so
            is a day written for a time never set (MySQL's "0000-00-00 00:00:00", Go's
            "0001-01-01T00:00:00Z", ``date.min``, ``datetime.max``:
            ``export_dates.is_zero_date``).
        source: where it came from (a file path, ``git:/path/to/repo``, a name you choose).
        thread: the conversation it belongs to.
        meta: other JSON-serialisable facts (attachments, channel, changed files, ...).

    Example:
        >>> from memtrails import MemoryRecord
        >>> record = MemoryRecord(id="n1", text="Boiler serviced.", at="2024-05-02")
        >>> record.kind, str(record.at)
        ('note', '2024-05-02T00:00:00.000Z')

        A list of them is a source: ``await memory.ingest([record], name="notes")``.
    """

    id: str
    text: str
    kind: str = "note"
    author: str | None = None
    title: str | None = None
    at: At | None = None
    source: str = ""
    thread: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    if TYPE_CHECKING:
        # What the generated __init__ takes: ``at`` as anything At.of reads (converted in
        # __post_init__), which the field's own type (At, as it is read back) cannot say.
        def __init__(
            self,
            id: str,
            text: str,
            kind: str = "note",
            author: str | None = None,
            title: str | None = None,
            at: AtLike | None = None,
            source: str = "",
            thread: str | None = None,
            meta: Mapping[str, Any] = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        for name in _NAMES:  # a driver's bytes, UUID or integer: as text (record_values)
            value = getattr(self, name)
            if value is not None and type(value) is not str:
                read = id_value if name in ("id", "thread") else text_value
                object.__setattr__(self, name, read(name, value))
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"`id` must be a non-empty string, got {self.id!r}")
        if self.text is None:  # a NULL text column: the title alone, when there is one
            if not self.title:
                raise ValueError(
                    f"record {self.id[:80]!r}: `text` is None (a NULL column?) and there is "
                    "no title: nothing to remember"
                )
            object.__setattr__(self, "text", "")
        if not isinstance(self.text, str):
            raise TypeError(f"`text` must be a string, got {type(self.text).__name__}")
        if self.at is not None and not isinstance(self.at, At):
            try:
                object.__setattr__(self, "at", _record_at(self.at))
            except (TypeError, ValueError) as exc:  # a row's error names its column
                raise type(exc)(f"`at`: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """Return the record as the JSON object the memory folder stores."""
        return {
            "id": self.id,
            "source": self.source,
            "kind": self.kind,
            "title": self.title,
            "author": self.author,
            "at": self.at.iso() if self.at else None,
            "thread": self.thread,
            "text": self.text,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> MemoryRecord:
        """Build a record from :meth:`to_json`'s form."""
        return cls(
            id=obj["id"],
            text=obj["text"],
            kind=obj.get("kind") or "note",
            author=obj.get("author"),
            title=obj.get("title"),
            at=At.of(obj["at"]) if obj.get("at") else None,
            source=obj.get("source") or "",
            thread=obj.get("thread"),
            meta=obj.get("meta") or {},
        )


RECORD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MemoryRecord))
"""The fields a record has, in order: what a mapping may carry to become one."""


@dataclass(frozen=True, slots=True)
class RecordError:
    """A record that could not be read: where it is and why. It never stops an import.

    ``id`` is the record's id when the importer knows it (a file's path, say): pruning then
    keeps the record the folder already has instead of removing it.
    """

    source: str
    where: str
    reason: str
    id: str | None = None

    def __str__(self) -> str:
        return f"{self.source} ({self.where}): {self.reason}"

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "where": self.where, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Seen:
    """A record still in its source that the importer proved unchanged without reading it.

    Incremental importers yield it (a file whose size, mtime and hash match the last run)
    so that the import counts the record as unchanged and pruning keeps it.

    Args:
        source: the source the record belongs to.
        id: the record's id in that source.

    Example: one the folder holds is unchanged; one it does not is an error, as the folder
    cannot have a record it never read:

        >>> import asyncio, tempfile
        >>> from memtrails import Memory, MemoryRecord, Seen
        >>> from memtrails.testing import HashingEmbedder
        >>> async def run(folder):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         await memory.ingest([MemoryRecord(id="1", text="kept", source="notes")])
        ...         return await memory.ingest([Seen("notes", "1"), Seen("notes", "2")])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     report = asyncio.run(run(folder))
        >>> report.unchanged, [error.where for error in report.errors]
        (1, ['2'])
    """

    source: str
    id: str


@dataclass(frozen=True, slots=True)
class SourceState:
    """Where an importer got to: saved once every record before it is in the folder.

    Args:
        source: the source it belongs to.
        state: JSON-serialisable position (a byte offset, a commit sha, file hashes...),
            handed back to the importer as ``state=`` on the next run.
        mode: how this run read the source: ``"full"`` or ``"incremental"``.
        complete: this run has now seen every record the source holds (a full pass that
            reached the end), so records it did not see may be pruned.
        why: why a full pass was needed, when the importer had a state but could not use it.
        skipped: records before the resume position, proven unchanged without being read
            (the import counts them as unchanged).
        duplicates: copies this pass folded into a record it had already yielded (a mail
            archived twice), so far; the import counts them apart from errors.
        deleted: ids of records the source says were deleted (a Slack ``message_deleted``
            event, a tombstone): the import forgets those it holds when it saves this
            position, with or without ``prune``, and counts them as removed.

    Example: an importer of your own yields one after the records it covers, and is handed
    it back as ``state=`` on the next run (:func:`memtrails.extend.resumable_importer`)::

        @resumable_importer(lambda args, kwargs: "rows")
        async def from_rows(rows, *, source, state=None):
            start = state["row"] if state else 0
            for n, row in enumerate(rows[start:], start):
                yield MemoryRecord(id=str(n), text=row, source=source)
            mode = "incremental" if state else "full"
            yield SourceState(source, {"row": len(rows)}, mode=mode, complete=not state)

        await memory.ingest(from_rows(["a", "b"]))       # full: 2 added
        await memory.ingest(from_rows(["a", "b", "c"]))  # incremental: row 2 alone, 1 added
    """

    source: str
    state: Mapping[str, Any]
    mode: str = "full"
    complete: bool = False
    why: str | None = None
    skipped: int = 0
    duplicates: int = 0
    deleted: tuple[str, ...] = ()


Item: TypeAlias = "MemoryRecord | RecordError | Seen | SourceState"

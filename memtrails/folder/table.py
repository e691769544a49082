"""The in-memory table of live records: uid -> latest fingerprint and log offset."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Literal

from .log import LogEntry, RecordLog

__all__ = ["IN_FLIGHT", "Table"]

IN_FLIGHT = -1  # claimed by a running import, not yet in the log


class Table:
    """Live records by uid, rebuilt from the log at open; the dedup stage's memory.

    An entry is ``(fingerprint, log offset, source number)``; sources are interned because
    a folder holds few sources and many records.
    """

    def __init__(self) -> None:
        self._rows: dict[str, tuple[str, int, int]] = {}
        self._sources: list[str] = []
        self._source_ids: dict[str, int] = {}

    def __len__(self) -> int:
        return sum(1 for _, offset, _ in self._rows.values() if offset != IN_FLIGHT)

    def __contains__(self, uid: object) -> bool:
        row = self._rows.get(uid)  # type: ignore[call-overload]
        return row is not None and row[1] != IN_FLIGHT

    def _source_id(self, source: str) -> int:
        sid = self._source_ids.get(source)
        if sid is None:
            sid = self._source_ids[source] = len(self._sources)
            self._sources.append(source)
        return sid

    def load(self, log: RecordLog) -> None:
        """Apply every line of ``log`` (blocking: run it in a worker thread)."""
        for entry in log.scan():
            self.apply(entry)

    def apply(self, entry: LogEntry) -> None:
        """Apply one log line: a version replaces the row, a tombstone removes it."""
        if entry.fp is None:
            self._rows.pop(entry.uid, None)
        else:
            self._rows[entry.uid] = (entry.fp, entry.offset, self._source_id(entry.source))

    def set(self, uid: str, fp: str, offset: int, source: str) -> None:
        """Record that the current version of ``uid`` is the log line at ``offset``."""
        self._rows[uid] = (fp, offset, self._source_id(source))

    def get(self, uid: str) -> tuple[str, int, str] | None:
        """Return ``(fingerprint, offset, source)`` of a live record, or None."""
        row = self._rows.get(uid)
        if row is None or row[1] == IN_FLIGHT:
            return None
        return row[0], row[1], self._sources[row[2]]

    def raw(self, uid: str) -> tuple[str, int, int] | None:
        return self._rows.get(uid)

    def restore(self, uid: str, row: tuple[str, int, int] | None) -> None:
        if row is None:
            self._rows.pop(uid, None)
        else:
            self._rows[uid] = row

    def remove(self, uid: str) -> None:
        self._rows.pop(uid, None)

    def claim(
        self, uid: str, fp: str, source: str
    ) -> tuple[Literal["new", "changed", "unchanged"], tuple[str, int, int] | None]:
        """Mark a version as on its way; return how it relates to the stored one and the old row."""
        row = self._rows.get(uid)
        if row is not None and row[0] == fp:
            return "unchanged", row
        self._rows[uid] = (fp, IN_FLIGHT, self._source_id(source))
        return ("new" if row is None else "changed"), row

    def offsets(self) -> Iterator[tuple[str, int]]:
        for uid, (_, offset, _) in self._rows.items():
            if offset != IN_FLIGHT:
                yield uid, offset

    def uids_of(self, source: str) -> list[str]:
        """Return the uids of the live records of one source."""
        sid = self._source_ids.get(source)
        if sid is None:
            return []
        return [
            uid for uid, (_, offset, s) in self._rows.items() if s == sid and offset != IN_FLIGHT
        ]

    def sources(self) -> list[str]:
        return list(self._sources)

    def per_source(self) -> Counter[str]:
        counts = Counter(sid for _, offset, sid in self._rows.values() if offset != IN_FLIGHT)
        return Counter({self._sources[sid]: n for sid, n in counts.items()})

"""The dedup table: uid -> latest fingerprint, log offset and source, kept on disk in SQLite.

The table is derived from ``records.jsonl`` and saved beside it (``table.sqlite``) with the
log offset it covers, so opening a folder reads only the log lines written since (none after
a clean close) instead of the whole log, and memory does not grow with the folder: rows live
in SQLite's pages, with a bounded cache. A table that does not match its log (missing,
unreadable, from a longer or different log) is rebuilt from the log.

A row may also hold the digest of the raw input its record was made from (``raw``, see
``items.RawLine``): a full pass over a changed file finds an unchanged line by that digest
without parsing, normalising or scrubbing it. The digest is set only together with the
fingerprint it produced, and any other write of the row clears it, so a row's digest
always names an input that makes exactly the row's record. It is not in the log: a table
rebuilt from the log has none, and the next full pass sets them again.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ._connection import Connection
from .damaged import DamagedLine, readable_entries
from .log import LogEntry, RecordLog

__all__ = ["IN_FLIGHT", "TABLE_FILE", "Live", "Row", "Table"]

IN_FLIGHT = -1  # claimed by a running import, not yet in the log
TABLE_FILE = "table.sqlite"
_SCHEMA_VERSION = 2  # 2: the raw input's digest (a version-1 table gains it in place)
# SQLite page cache: what the table may hold in memory. Lookups by uid land on random leaf
# pages, so at 1M rows any cache this size hardly hits (8.8 µs a lookup with 2 MiB, 8.7 with
# 16 MiB). 4 MiB keeps a 100k-record folder's `records_source` index, which a search's
# row count scans, cached (0.85 ms of table work a search against 0.9 with 16 MiB, 1.5 with
# 2 MiB); 12 MiB less than before at 1M.
_CACHE_KIB = 4096


# Rows a page when every row is read (`offsets`): a million rows are never held at once.
_PAGE = 10_000


class Row(NamedTuple):
    """A row as the table keeps it, claimed or stored."""

    fp: str
    offset: int  # of the record's line in the log, or IN_FLIGHT for a claim
    source_id: int  # the source's number in the table's ``sources``


class Live(NamedTuple):
    """A live record's row: its fingerprint, where its line is and the source it came from."""

    fp: str
    offset: int
    source: str


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS records (
    uid BLOB PRIMARY KEY, fp BLOB NOT NULL, offset INTEGER NOT NULL, source INTEGER NOT NULL,
    raw BLOB
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_source ON records (source);
"""
# Covering (the uid is the table's key, so every index holds it): a digest's lookup reads
# the index alone, 40% less time than going on to the row for its source.
_RAW_INDEX = (
    "CREATE INDEX IF NOT EXISTS records_by_raw ON records (raw, source) WHERE raw IS NOT NULL"
)
_KNOWN_CHUNK = 500  # keys per query (SQLite takes up to 32,766 parameters)


class Table:
    """Live records by uid: the dedup stage's memory, the search's way into the log.

    Claims (a version on its way, not yet in the log) are held in memory beside the stored
    rows: at most the records of the batches in flight. Blocking: every call is a SQLite
    query of microseconds; :meth:`sync` reads the log and belongs in a worker thread.

    Args:
        path: the SQLite file (``":memory:"`` for a table that is not kept).
    """

    def __init__(self, path: Path | str = ":memory:") -> None:
        self.path = path
        if path != ":memory:":
            # Owner-only, like everything in a memory folder, whatever the umask.
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        self._db = Connection(path)
        self._db.executescript(
            f"PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-{_CACHE_KIB};"
            + _SCHEMA
        )
        columns = [row[1] for row in self._db.execute("PRAGMA table_info(records)")]
        if "raw" not in columns:  # a version-1 table: the column is added, nothing rewritten
            self._db.executescript(
                "BEGIN; ALTER TABLE records ADD COLUMN raw BLOB;"
                f" UPDATE meta SET value = {_SCHEMA_VERSION} WHERE key = 'version'; COMMIT;"
            )
        self._db.execute(_RAW_INDEX)
        self._flight: dict[str, Row] = {}
        self._flight_raw: dict[str, bytes] = {}  # the raw digests of claims, until written
        self._sources = [
            name for (name,) in self._db.execute("SELECT name FROM sources ORDER BY id")
        ]
        self._source_ids = {name: i for i, name in enumerate(self._sources)}
        self._open_tx = False
        self._changed = False  # whether a row was written or deleted since the table opened
        self.damaged: list[DamagedLine] = []  # log lines read past (their records left out)
        # How many rows are stored, kept as rows come and go and saved with each commit, so
        # that a search (which needs the count for its keyword confidence) does not count
        # a million rows each time. None until known: counted once then. Saved with the log
        # offset the table covered then: a version that does not keep the count moves the
        # offset and leaves the count behind, which is then not trusted.
        saved = str(self._meta("rows") or "").partition("@")
        covered = str(self._meta("log_offset"))
        self._rows: int | None = int(saved[0]) if saved[1] and saved[2] == covered else None

    @classmethod
    def open(cls, folder: Path, log: RecordLog) -> tuple[Table, str | None]:
        """Open the folder's table and bring it up to date with ``log`` (blocking).

        Returns:
            The table, and what was done beyond reading new lines (a rebuild and why), or None.
        """
        path = folder / TABLE_FILE
        why: str | None
        try:
            table = cls(path)
            why = table._mismatch(log)
            if why is not None:
                table.close()
        except sqlite3.DatabaseError as exc:
            why = f"{TABLE_FILE} was unreadable ({exc})"
        if why is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            table = cls(path)
        try:
            table.sync(log)
        except BaseException:
            # A log it cannot read (a disk error): the open fails, and its transaction must not
            # hold the file locked for the next open in this process ("database is locked").
            table._abandon()
            raise
        return table, (f"rebuilt {TABLE_FILE} from the log: {why}" if why else None)

    @classmethod
    def open_current(cls, folder: Path, log: RecordLog) -> Table | None:
        """Open the folder's table as :meth:`open` does when it needs no rebuild; else None.

        A missing, unreadable or mismatched table is left as it is (``memtrails status``'s
        quick read then opens the folder, whose open rebuilds it and says so).
        """
        path = folder / TABLE_FILE
        if not path.is_file():
            return None
        try:
            table = cls(path)
        except sqlite3.DatabaseError:
            return None
        try:
            if table._mismatch(log) is None:
                table.sync(log)
                return table
        except sqlite3.DatabaseError:
            pass
        table.close()
        return None

    # -- reading -------------------------------------------------------------------------------

    def __len__(self) -> int:
        # A copy: a search counts from a worker thread while the event loop claims.
        claimed = sum(1 for uid in tuple(self._flight) if self._stored(uid) is not None)
        return self._stored_rows() - claimed

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and self.get(uid) is not None

    def get(self, uid: str) -> Live | None:
        """Return the row of a live record (not claimed by a running import), or None."""
        if uid in self._flight:
            return None
        row = self._stored(uid)
        return None if row is None else Live(row.fp, row.offset, self._sources[row.source_id])

    def live_among(self, uids: Iterable[str]) -> set[str]:
        """Return those of ``uids`` that are live records (as :meth:`get` tells them), in a
        query a few hundred at a time rather than one a uid: a search checks its 80-odd
        candidates so (10 us a lookup)."""
        keys: dict[bytes, str] = {}
        for uid in uids:
            try:
                keys[bytes.fromhex(uid)] = uid
            except ValueError:
                continue
        rows = self._rows_in("uid", "uid", list(keys))
        return {uid for (key,) in rows if (uid := keys[key]) not in self._flight}

    def raw(self, uid: str) -> Row | None:
        """Return the row, claimed (offset ``IN_FLIGHT``) or stored, or None."""
        return self._flight.get(uid) or self._stored(uid)

    def has_digests(self) -> bool:
        """Tell whether any stored record holds the digest of its input (a first import: no)."""
        return (
            self._db.execute("SELECT 1 FROM records WHERE raw IS NOT NULL LIMIT 1").fetchone()
            is not None
        )

    def known(self, digests: list[bytes]) -> dict[bytes, tuple[str, str]]:
        """Return ``(uid, source)`` of the live, unclaimed records made from inputs with these digests."""
        found: dict[bytes, tuple[str, str]] = {}
        for raw, uid, sid in self._rows_in("raw, uid, source", "raw", digests):
            hexed = uid.hex()
            if hexed not in self._flight:  # a version on its way is not the stored one
                found[raw] = (hexed, self._sources[sid])
        return found

    def _rows_in(self, columns: str, key: str, values: list[bytes]) -> Iterator[Any]:
        """Yield ``columns`` of the stored rows whose ``key`` is one of ``values``, asked
        ``_KNOWN_CHUNK`` values a query."""
        for i in range(0, len(values), _KNOWN_CHUNK):
            part = values[i : i + _KNOWN_CHUNK]
            marks = ",".join("?" * len(part))
            yield from self._db.execute(
                f"SELECT {columns} FROM records WHERE {key} IN ({marks})", part
            )

    def uids_of(self, source: str) -> list[str]:
        """Return the uids of the live records of one source."""
        sid = self._source_ids.get(source)
        if sid is None:
            return []
        rows = self._db.execute("SELECT uid FROM records WHERE source = ?", (sid,))
        return [uid.hex() for (uid,) in rows if uid.hex() not in self._flight]

    def offsets(self) -> Iterator[tuple[str, int]]:
        """Yield ``(uid, log offset)`` of every stored record (for consistency checks)."""
        after = b""
        while rows := self._db.execute(
            "SELECT uid, offset FROM records WHERE uid > ? ORDER BY uid LIMIT ?", (after, _PAGE)
        ).rows:
            for uid, offset in rows:
                yield uid.hex(), int(offset)
            after = rows[-1][0]

    def count_before(self, offset: int) -> int:
        """Return how many stored records have their current line before ``offset``."""
        (n,) = self._db.execute(
            "SELECT count(*) FROM records WHERE offset < ?", (offset,)
        ).fetchone()
        return int(n)

    def sources(self) -> list[str]:
        """Return every source name the folder has held."""
        return list(self._sources)

    def per_source(self) -> Counter[str]:
        """Return how many live records each source holds."""
        if len(self._sources) == 1:
            # One source ever: its count is the table's, kept as rows come and go (grouping
            # a million rows took 80-125 ms of `memtrails status`).
            return +Counter({self._sources[0]: len(self)})
        counts = self._kept_per_source()
        if counts is None:
            rows = self._db.execute("SELECT source, count(*) FROM records GROUP BY source")
            counts = Counter({self._sources[sid]: n for sid, n in rows})
        for uid in self._flight:
            stored = self._stored(uid)
            if stored is not None:
                counts[self._sources[stored.source_id]] -= 1
        return +counts

    # -- claims (in memory) ----------------------------------------------------------------------

    def claim(
        self, uid: str, fp: str, source: str, raw: bytes | None = None
    ) -> tuple[Literal["new", "changed", "unchanged"], Row | None]:
        """Mark a version as on its way; return how it relates to the stored one and the old row.

        ``raw``: the digest of the input this version was made from, kept with the row (at
        once for a stored row with this fingerprint, when written for a new version).
        """
        row = self.raw(uid)
        if row is not None and row.fp == fp:
            if raw is not None and row.offset != IN_FLIGHT:
                self._begin()
                self._db.execute(
                    "UPDATE records SET raw = ? WHERE uid = ?", (raw, bytes.fromhex(uid))
                )
            return "unchanged", row
        self._flight[uid] = Row(fp, IN_FLIGHT, self._source_id(source))
        if raw is not None:
            self._flight_raw[uid] = raw
        else:
            self._flight_raw.pop(uid, None)
        return ("new" if row is None else "changed"), row

    def restore(self, uid: str, row: Row | None) -> None:
        """Undo a claim whose version never reached the log (``row``: the row before it)."""
        self._flight.pop(uid, None)
        self._flight_raw.pop(uid, None)

    # -- writing (the folder's writer only) ------------------------------------------------------

    def set(self, uid: str, fp: str, offset: int, source: str) -> None:
        """Record that the current version of ``uid`` is the log line at ``offset``.

        The raw digest its claim carried is kept when this is the claimed version;
        otherwise the row has none.
        """
        claimed = self._flight.pop(uid, None)
        raw = self._flight_raw.pop(uid, None)
        if claimed is None or claimed.fp != fp:
            raw = None
        self._begin()
        self._changed = True
        key, sid = bytes.fromhex(uid), self._source_id(source)
        updated = self._db.execute(
            "UPDATE records SET fp = ?, offset = ?, source = ?, raw = ? WHERE uid = ?",
            (bytes.fromhex(fp), offset, sid, raw, key),
        ).rowcount
        if not updated:
            self._db.execute(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?)",
                (key, bytes.fromhex(fp), offset, sid, raw),
            )
            if self._rows is not None:
                self._rows += 1

    def remove(self, uid: str) -> None:
        """Forget ``uid`` (its tombstone is in the log)."""
        self._flight.pop(uid, None)
        self._flight_raw.pop(uid, None)
        self._begin()
        self._changed = True
        gone = self._db.execute("DELETE FROM records WHERE uid = ?", (bytes.fromhex(uid),)).rowcount
        if gone and self._rows is not None:
            self._rows -= 1

    def commit(self, log: RecordLog) -> None:
        """Make the changes so far durable as covering the log up to its current end."""
        self._begin()
        self._db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("version", _SCHEMA_VERSION), ("log_offset", log.size), ("tail", log.tail(log.size))],
        )
        self._commit()

    def sync(self, log: RecordLog, *, whole: bool = False) -> int:
        """Apply the log lines past the offset the table covers; return how many (blocking).
        A damaged line is read past, into ``damaged`` (see ``damaged.readable_entries``)."""
        start = int(self._meta("log_offset") or 0)
        applied = 0
        for entry in readable_entries(log, start, self.damaged, whole=whole):
            self._apply(entry)
            applied += 1
        if applied or start != log.size:
            self.commit(log)
        return applied

    def rebuild(self, log: RecordLog) -> int:
        """Drop every stored row and apply the whole log again; return the rows (blocking).

        For a table that lost or gained rows the log disagrees with (``memtrails check``).
        The inputs' digests are not in the log: the next import parses those inputs once.
        """
        self._begin()
        self._changed = True
        self._db.execute("DELETE FROM records")
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('log_offset', 0)")
        self._rows = 0
        self._commit()
        self.sync(log, whole=True)
        return self._stored_rows()

    def load(self, log: RecordLog) -> None:
        """Apply every line of ``log`` (an empty table; blocking)."""
        self.sync(log)

    def close(self) -> None:
        """Commit what is pending, keep the per-source counts when rows changed, and close."""
        if self._open_tx:
            self._commit()
        if self._changed and len(self._sources) > 1:
            self._keep_per_source()
        self._db.close()

    def _abandon(self) -> None:
        """Close without keeping what is pending (an open that failed part way)."""
        if self._open_tx:
            self._db.execute("ROLLBACK")
            self._open_tx = False
        self._db.close()

    def _keep_per_source(self) -> None:
        # Counted once, at the close after the last change (80-125 ms at 1M rows), not by each
        # `memtrails status`; saved with the log offset they stand for (as the row count is).
        rows = self._db.execute("SELECT source, count(*) FROM records GROUP BY source")
        kept = json.dumps({str(sid): n for sid, n in rows}, separators=(",", ":"))
        saved = f"{kept}@{self._meta('log_offset')}"
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('per_source', ?)", (saved,))

    def _kept_per_source(self) -> Counter[str] | None:
        # The counts the last close kept, when no row changed since (the saved offset is the
        # one the table covers, and this table has not changed a row).
        if self._changed:
            return None
        saved, _, at = str(self._meta("per_source") or "").rpartition("@")
        if not saved or at != str(self._meta("log_offset")):
            return None
        try:
            kept = json.loads(saved)
            return Counter({self._sources[int(sid)]: int(n) for sid, n in kept.items()})
        except (ValueError, TypeError, IndexError, AttributeError):
            return None

    # -- internals -------------------------------------------------------------------------------

    def _stored(self, uid: str) -> Row | None:
        try:
            key = bytes.fromhex(uid)
        except ValueError:
            return None
        row = self._db.execute(
            "SELECT fp, offset, source FROM records WHERE uid = ?", (key,)
        ).fetchone()
        return None if row is None else Row(row[0].hex(), row[1], row[2])

    def _apply(self, entry: LogEntry) -> None:
        if entry.fp is None:
            self.remove(entry.uid)
        else:
            self.set(entry.uid, entry.fp, entry.offset, entry.source)

    def _source_id(self, source: str) -> int:
        sid = self._source_ids.get(source)
        if sid is None:
            sid = len(self._sources)
            self._begin()
            self._db.execute("INSERT INTO sources VALUES (?, ?)", (sid, source))
            self._sources.append(source)
            self._source_ids[source] = sid
        return sid

    def _stored_rows(self) -> int:
        if self._rows is None:
            (n,) = self._db.execute("SELECT count(*) FROM records").fetchone()
            self._rows = int(n)
        return self._rows

    def _commit(self) -> None:
        # The saved count goes with the rows it counts, in the same transaction (counted
        # once if not known yet: then kept as rows come and go).
        saved = f"{self._stored_rows()}@{self._meta('log_offset')}"
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('rows', ?)", (saved,))
        self._db.execute("COMMIT")
        self._open_tx = False

    def _begin(self) -> None:
        if not self._open_tx:
            self._db.execute("BEGIN")
            self._open_tx = True

    def _meta(self, key: str) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _mismatch(self, log: RecordLog) -> str | None:
        """Say why this table cannot be brought up to date by reading on, or None."""
        version = self._meta("version")
        if version is None:
            return (
                None
                if self._meta("log_offset") is None and not self._any()
                else "it had no version"
            )
        if version not in (1, _SCHEMA_VERSION):  # version 1 gained its column when opened
            return f"it has version {version}, this memtrails writes {_SCHEMA_VERSION}"
        offset = int(self._meta("log_offset") or 0)
        if offset > log.size:
            return f"it covers {offset} bytes of records.jsonl, which has {log.size}"
        if self._meta("tail") != log.tail(offset):
            return "records.jsonl changed before the offset the table covers"
        return None

    def _any(self) -> bool:
        return self._db.execute("SELECT 1 FROM records LIMIT 1").fetchone() is not None

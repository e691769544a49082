"""The dedup table's SQLite connection, safe to close while a worker thread reads it."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["Connection", "Ran"]


class Ran:
    """A statement's rows, all read, and how many rows it changed."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows, self.rowcount = rows, rowcount

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None


class Connection:
    """The table's SQLite connection, one statement at a time, each read to its last row.

    A search reads the table from worker threads, and a folder may close while one of them
    is between two reads (a request cancelled part-way). sqlite3 frees a connection's
    statements when it closes, and a thread still stepping one then crashed the process (a
    segmentation fault). Under one lock, which the close takes too, a read after the close
    is an error instead: ``sqlite3.ProgrammingError`` ("Cannot operate on a closed
    database"), which the cancelled search never sees.
    """

    __slots__ = ("_db", "_lock")

    def __init__(self, path: Path | str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Ran:
        with self._lock:
            cursor = self._db.execute(sql, params)
            return Ran(cursor.fetchall(), cursor.rowcount)

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        with self._lock:
            self._db.executemany(sql, params)

    def executescript(self, sql: str) -> None:
        with self._lock:
            self._db.executescript(sql)

    def set_trace_callback(self, callback: Any) -> None:
        """Pass each statement run to ``callback`` (tests count a search's queries so)."""
        with self._lock:
            self._db.set_trace_callback(callback)

    def close(self) -> None:
        with self._lock:
            self._db.close()

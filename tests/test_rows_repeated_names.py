"""Rows that name their columns (``sqlite3.Row``, asyncpg's ``Record``) from a join that
names two columns alike (``SELECT n.id, n.text, u.id``): the record's id is the first one's,
as for a cursor's plain tuples, and the other is kept in ``meta`` as ``id_2``. Before, a row
read by its names answered ``row["id"]`` for both, and the user's id was lost without a word."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from memtrails import Memory, from_cursor
from memtrails.record_values import numbered_names, row_fields
from memtrails.testing import HashingEmbedder

_QUERY = "SELECT n.id, n.text, u.id, u.name, n.seq FROM notes n JOIN users u ON u.id = n.user"


def _db() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.executescript(
        """
        CREATE TABLE notes (id INTEGER, text TEXT, user INTEGER, seq INTEGER);
        CREATE TABLE users (id INTEGER, name TEXT);
        INSERT INTO notes VALUES (1, 'first', 7, 1), (2, 'second', 8, 2);
        INSERT INTO users VALUES (7, 'ann'), (8, 'bob');
        """
    )
    return db


class _Record:
    """A row as asyncpg's ``Record`` is one: ``keys()``, by name (the first alike), by place."""

    def __init__(self, names: list[str], values: list[Any]) -> None:
        self._names, self._values = names, values

    def keys(self) -> Iterator[str]:
        return iter(self._names)

    def __getitem__(self, key: str | int) -> Any:
        return self._values[key if isinstance(key, int) else self._names.index(key)]

    def __len__(self) -> int:
        return len(self._values)


async def _records() -> AsyncIterator[_Record]:
    for values in ([1, "first", 7, "ann"], [2, "second", 8, "bob"]):
        yield _Record(["id", "text", "id", "name"], values)


async def test_sqlite_rows_keep_a_joins_second_id(tmp_path: Path) -> None:
    db = _db()
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(db.execute(_QUERY), name="notes")
        first = await memory.get("1", source="notes")
        second = await memory.get("2", source="notes")
    assert (report.added, report.errors) == (2, [])
    assert first is not None and second is not None
    assert (first.text, first.meta["id_2"], first.meta["name"]) == ("first", 7, "ann")
    assert (second.text, second.meta["id_2"]) == ("second", 8)


async def test_async_records_keep_a_joins_second_id(tmp_path: Path) -> None:
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(_records(), name="pg")
        second = await memory.get("2", source="pg")
    assert (report.added, report.errors) == (2, [])
    assert second is not None and (second.meta["id_2"], second.meta["name"]) == (8, "bob")


async def test_cursor_rows_keep_a_joins_second_id(tmp_path: Path) -> None:
    db = _db()

    def fetch(since: int | None) -> sqlite3.Cursor:
        return db.execute(_QUERY + " WHERE n.seq >= ?", (since or 0,))

    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_cursor(fetch, name="notes", cursor="seq"), name="notes")
        first = await memory.get("1", source="notes")
    assert (report.added, report.errors) == (2, [])
    assert first is not None and first.meta["id_2"] == 7
    assert "seq" not in first.meta  # the cursor column stays out, as before


def test_row_fields_number_only_repeated_names() -> None:
    row = sqlite3.connect(":memory:")
    row.row_factory = sqlite3.Row
    plain = row.execute("SELECT 1 AS id, 'x' AS text").fetchone()
    assert row_fields(plain) == {"id": 1, "text": "x"}
    both = row.execute("SELECT 1 AS id, 2 AS id_2, 3 AS id").fetchone()
    assert row_fields(both) == {"id": 1, "id_2": 2, "id_3": 3}
    assert numbered_names(["a", "a", "a"]) == ["a", "a_2", "a_3"]
